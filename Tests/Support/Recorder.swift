import Foundation

/// Collects values delivered on any thread and lets a test wait, with a deadline, until what it
/// collected satisfies a condition: synchronously (blocking) or from async code (polling).
public final class Recorder<Value>: @unchecked Sendable {
  /// An empty recorder.
  public init() {}

  // `recorded` is guarded by `condition`'s lock.
  private let condition = NSCondition()
  private var recorded: [Value] = []

  /// Same as ``record(_:)``.
  public func append(_ value: Value) {
    record(value)
  }

  /// Records `value`; safe from any thread.
  public func record(_ value: Value) {
    condition.lock()
    recorded.append(value)
    condition.broadcast()
    condition.unlock()
  }

  /// What was recorded so far, in order.
  public var values: [Value] {
    condition.lock()
    defer { condition.unlock() }
    return recorded
  }

  /// How many values were recorded so far.
  public var count: Int { values.count }

  /// Blocks until `done(values)` holds, for at most `seconds`; whether it held. Never call it
  /// on the main actor while waiting for main-actor deliveries.
  @discardableResult
  public func wait(seconds: Double = 60, until done: ([Value]) -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    condition.lock()
    defer { condition.unlock() }
    while !done(recorded) {
      if !condition.wait(until: deadline) { return done(recorded) }
    }
    return true
  }

  /// Blocks until at least `count` values arrived, for at most `seconds`.
  @discardableResult
  public func wait(forCount count: Int, seconds: Double = 60) -> Bool {
    wait(seconds: seconds) { $0.count >= count }
  }

  /// Suspends (without blocking the thread, so main-actor deliveries can run) until at least
  /// `count` values arrived, for at most `seconds`.
  @discardableResult
  public func arrival(ofCount count: Int, seconds: Double = 60) async -> Bool {
    await eventually(seconds: seconds) { self.count >= count }
  }
}

/// Suspends until `condition` holds, checking every millisecond, for at most `seconds`; whether
/// it held. A deadline for things that must happen, never a timing assertion: the default, 60 s,
/// only keeps a test that would wait forever from hanging, and a loaded machine under a
/// sanitizer meets it.
public func eventually(
  seconds: Double = 60, isolation: isolated (any Actor)? = #isolation,
  _ condition: () async -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while await !condition() {
    if ContinuousClock.now > deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}
