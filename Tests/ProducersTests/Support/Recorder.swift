import Dispatch
import Foundation

/// Collects values delivered on any queue and lets a test wait, with a deadline, until what it
/// collected satisfies a condition.
final class Recorder<Value>: @unchecked Sendable {
  // `recorded` is guarded by `condition`'s lock.
  private let condition = NSCondition()
  private var recorded: [Value] = []

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

  /// Waits until `done(values)` holds, for at most `seconds`; whether it held.
  @discardableResult
  func wait(seconds: Double = 5, until done: ([Value]) -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    condition.lock()
    defer { condition.unlock() }
    while !done(recorded) {
      if !condition.wait(until: deadline) { return done(recorded) }
    }
    return true
  }

  /// Waits until at least `count` values arrived, for at most `seconds`.
  @discardableResult
  func wait(forCount count: Int, seconds: Double = 5) -> Bool {
    wait(seconds: seconds) { $0.count >= count }
  }
}
