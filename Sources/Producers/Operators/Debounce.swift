import IndefiniteObservable

extension ValueObservable {
  /// Passes on a value only once `dueTime` has passed without a newer one: the last value of
  /// each burst, `dueTime` after it arrived.
  ///
  /// ```swift
  /// let searches = query.changes.debounce(for: .milliseconds(300))
  /// ```
  ///
  /// As Combine's `debounce(for:scheduler:)`, with a `Clock` in place of a scheduler.
  ///
  /// - Without completion: a stream never ends, so no last value is flushed at an end. A value
  ///   still waiting when the subscription ends is dropped, and its wait cancelled.
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes), as a producer's does: subscribe and send into it there. Each value is delivered
  ///   on that actor, so `T` need not be `Sendable`; the upstream's send returns at once.
  /// - Unsubscribe: cancels the wait. Once `unsubscribe()` returns on the stream's actor, no
  ///   value is delivered; from another thread, a delivery already under way on the actor may
  ///   finish, and no other begins.
  /// - Cost: no allocation per value. Each subscription has one alarm on `clock` (the module's
  ///   one timer mechanism: a Dispatch timer for `ContinuousClock`, whose fire hops once to the
  ///   actor), armed once per burst, and once more for each later deadline that a newer value
  ///   set meanwhile.
  /// - Testing: with a `ManualClock`, `advance(by:)` delivers the values that became due before
  ///   it returns. A zero or negative `dueTime` is then due at the clock's present: the next
  ///   advance, even by zero, delivers it.
  ///
  /// - Parameters:
  ///   - dueTime: How long the stream must be quiet before its last value is passed on. Any
  ///     duration, as Combine takes any stride: zero or less passes on the last value of each
  ///     burst sent synchronously, after the upstream's send returns, on the next turn of the
  ///     actor; one longer than `Timers.maximumInterval` (about 63 years) waits that long, which
  ///     in practice is never, as Combine's `distantFuture`.
  ///   - clock: The clock that measures `dueTime`; a test passes one it controls.
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  @inlinable
  public func debounce(
    for dueTime: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<T> {
    let dueTime = clampedInterval(dueTime)
    return ValueObservable { observer in
      let state = DebounceState<T, _>(deadline: clock.now)
      let alarm = makeAlarm(clock: clock, isolation: isolation) { _ in
        let remaining = clock.now.duration(to: state.deadline)
        guard remaining <= .zero else {
          state.alarm?.arm(after: remaining, repeating: nil)  // a newer value came
          return
        }
        state.waiting = false
        if let value = state.pending.take() { observer.next(value) }
      }
      state.alarm = alarm
      let upstream = self.subscribe { value in
        state.pending = value
        state.deadline = clock.now.advanced(by: dueTime)
        guard !state.waiting else { return }
        state.waiting = true
        alarm.arm(after: dueTime, repeating: nil)
      }
      return {
        alarm.cancel()
        upstream.unsubscribe()
      }
    }
  }
}

/// A debounce subscription's value, deadline and alarm, touched only on the stream's actor.
@usableFromInline
final class DebounceState<T, Instant> {
  @usableFromInline var pending: T?
  @usableFromInline var deadline: Instant
  @usableFromInline var waiting = false
  // The subscription's alarm, which its own closure re-arms; released when the alarm is
  // cancelled (the closure that holds this state goes with it).
  @usableFromInline var alarm: (any Alarm)?

  @inlinable
  init(deadline: Instant) {
    self.deadline = deadline
  }
}
