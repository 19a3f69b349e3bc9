import Dispatch
import Foundation
import IndefiniteObservable

/// Collects values delivered on any thread and lets a test wait, with a deadline, until what it
/// collected satisfies a condition: synchronously (blocking) or from async code (polling).
final class Recorder<Value>: @unchecked Sendable {
  // `recorded` is guarded by `condition`'s lock.
  private let condition = NSCondition()
  private var recorded: [Value] = []

  /// Same as ``record(_:)``.
  func append(_ value: Value) {
    record(value)
  }

  func record(_ value: Value) {
    condition.lock()
    recorded.append(value)
    condition.broadcast()
    condition.unlock()
  }

  var values: [Value] {
    condition.lock()
    defer { condition.unlock() }
    return recorded
  }

  var count: Int { values.count }

  /// Blocks until `done(values)` holds, for at most `seconds`; whether it held. Never call it
  /// on the main actor while waiting for main-actor deliveries.
  @discardableResult
  func wait(seconds: Double = 10, until done: ([Value]) -> Bool) -> Bool {
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
  func wait(forCount count: Int, seconds: Double = 10) -> Bool {
    wait(seconds: seconds) { $0.count >= count }
  }

  /// Suspends (without blocking the thread, so main-actor deliveries can run) until at least
  /// `count` values arrived, for at most `seconds`.
  @discardableResult
  func arrival(ofCount count: Int, seconds: Double = 60) async -> Bool {
    await eventually(seconds: seconds) { self.count >= count }
  }
}

/// Suspends until `condition` holds, checking every millisecond, for at most `seconds`; whether
/// it held. A deadline for things that must happen, never a timing assertion.
func eventually(
  seconds: Double = 10, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while !condition() {
    if ContinuousClock.now > deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

/// Lets a test pass a few turns of the main actor and the cooperative pool, so that work that
/// should *not* happen has had its chance to happen.
func settle(isolation: isolated (any Actor)? = #isolation) async {
  for _ in 0..<20 {
    await Task.yield()
  }
  try? await Task.sleep(for: .milliseconds(20))
  for _ in 0..<20 {
    await Task.yield()
  }
}

/// Runs `body` on a thread of the global queue and waits for it. (`DispatchQueue.sync` would
/// not do: it runs its block on the calling thread, and a block written in main-actor code is
/// main-actor isolated.)
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
  let done = DispatchSemaphore(value: 0)
  DispatchQueue.global().async {
    body()
    done.signal()
  }
  done.wait()
}

/// Runs `body` on a new thread of its own (not a Dispatch worker, so that blocking it cannot
/// starve other tests) and returns a semaphore signalled when `body` returns.
func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done
}

/// A counter that threads increment at once.
///
/// `@unchecked Sendable`: `storage` is read and written only under `lock`.
final class Counter: @unchecked Sendable {
  private let lock = Lock()
  private var storage = 0

  /// Adds one and returns the new value.
  @discardableResult
  func increment() -> Int {
    lock.withLock {
      storage += 1
      return storage
    }
  }

  var value: Int {
    lock.withLock { storage }
  }
}

/// An object whose deallocation tests watch through a weak reference.
final class Witness {
  var received: [Int] = []
}
