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

/// Checks the interval of `debounce` and `throttle` by the rule of ``Timers``: above zero, and
/// at most ``Timers/maximumInterval``, so that no deadline computed from it can overflow.
@usableFromInline
func checkedInterval(_ interval: Duration) throws(TimerError) -> Duration {
  guard interval > .zero else { throw .notPositive(interval) }
  guard interval <= Timers.maximumInterval else { throw .tooLong(interval) }
  return interval
}

/// Checks the interval of `delay` by the rule of ``Timers/after(_:leeway:isolation:)``: zero or
/// more, and at most ``Timers/maximumInterval``.
@usableFromInline
func checkedDelay(_ delay: Duration) throws(TimerError) -> Duration {
  guard delay >= .zero else { throw .negativeDelay(delay) }
  guard delay <= Timers.maximumInterval else { throw .tooLong(delay) }
  return delay
}
