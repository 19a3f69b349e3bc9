import TestSupport

extension Recorder {
  /// Suspends (without blocking the thread, so that deliveries on the test's actor can run)
  /// until `done(values)` holds, for at most `seconds`; whether it held.
  func arrival(
    seconds: Double = 60, isolation: isolated (any Actor)? = #isolation,
    until done: ([Value]) -> Bool
  ) async -> Bool {
    await eventually(seconds: seconds) { done(self.values) }
  }
}
