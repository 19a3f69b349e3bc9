import IndefiniteObservable

/// The part of a time-based operator's subscription that its disconnect touches: whether the
/// subscription has ended, and the task that waits for the next deadline, if one does.
///
/// A subscription of `debounce`, `throttle` or `delay` keeps its values in state that only the
/// stream's actor touches (the upstream delivers there, and the waiting task runs there). Its
/// disconnect may run on another thread (a `Subscription` may be ended from anywhere), so what
/// the disconnect needs lives here, under the package's lock.
@usableFromInline
final class TimedWork: Sendable {
  private let state = LockedState(State())

  /// A subscription that has not ended, with no task waiting.
  @usableFromInline
  init() {}

  private struct State {
    var ended = false
    var task: Task<Void, Never>?
  }

  /// Whether the subscription has ended: a waiting task checks it, on the stream's actor,
  /// before each delivery.
  @usableFromInline
  var ended: Bool {
    state.withLock { $0.ended }
  }

  /// Records `task` as the one that waits, or cancels it when the subscription has ended.
  @usableFromInline
  func waiting(on task: Task<Void, Never>) {
    let accepted = state.withLock { state in
      guard !state.ended else { return false }
      state.task = task
      return true
    }
    if !accepted { task.cancel() }
  }

  /// Ends the subscription: no delivery begins after this returns, and the waiting task is
  /// cancelled (its sleep ends at once, and the task ends without delivering).
  @usableFromInline
  func end() {
    let task = state.withLock { state in
      state.ended = true
      return state.task.take()
    }
    task?.cancel()
  }
}

/// The interval of `debounce`, `throttle` or `delay` as the operator waits it, by Combine's
/// rule for a scheduler's stride: zero or less is no wait (a deadline already passed), and one
/// longer than ``Timers/maximumInterval`` waits that long (about 63 years: in practice never, as
/// Combine's `distantFuture`), so that no deadline computed from it can overflow.
@usableFromInline
func clampedInterval(_ interval: Duration) -> Duration {
  min(max(interval, .zero), Timers.maximumInterval)
}
