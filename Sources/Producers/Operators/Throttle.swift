import IndefiniteObservable

extension ValueObservable {
  /// Passes on at most one value per `interval`: the first value at once, then, at the end of
  /// each interval in which values arrived, the latest of them (`latest: true`) or the first.
  ///
  /// ```swift
  /// let positions = drags.throttle(for: .milliseconds(50), latest: true)
  /// ```
  ///
  /// As Combine's `throttle(for:scheduler:latest:)`, with a `Clock` in place of a scheduler,
  /// with one difference: a value that may pass at once (none was passed on in the last
  /// `interval`) is delivered synchronously, before the upstream's send returns, where Combine
  /// schedules it on its scheduler.
  ///
  /// - At the window's end: the value held for it (the latest or the first that arrived since
  ///   the last one passed on) is delivered, and the next window starts then. A window in which
  ///   no value arrived delivers nothing, and the next value passes at once.
  /// - Without completion: a stream never ends, so no held value is flushed at an end. A value
  ///   held when the subscription ends is dropped, and its wait cancelled.
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes): subscribe and send into it there. A held value is delivered on that actor, so
  ///   `T` need not be `Sendable`.
  /// - Unsubscribe: cancels the wait. Once `unsubscribe()` returns on the stream's actor, no
  ///   value is delivered; from another thread, a delivery already under way on the actor may
  ///   finish, and no other begins.
  /// - Cost: no allocation per value. Each subscription has one alarm on `clock` (the module's
  ///   one timer mechanism: a Dispatch timer for `ContinuousClock`, whose fire hops once to the
  ///   actor), armed once per held value, for the window's end.
  /// - Testing: with a `ManualClock`, `advance(by:)` delivers a held value whose window ended
  ///   before it returns.
  ///
  /// - Parameters:
  ///   - interval: The shortest time between two values passed on. Any duration, as Combine
  ///     takes any stride: zero or less passes every value at once; one longer than
  ///     `Timers.maximumInterval` (about 63 years) holds that long, which in practice is never,
  ///     as Combine's `distantFuture`.
  ///   - clock: The clock that measures `interval`; a test passes one it controls.
  ///   - latest: Whether a window's end delivers the latest value that arrived in it (true) or
  ///     the first (false).
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  @inlinable
  public func throttle(
    for interval: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    latest: Bool,
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<T> {
    let interval = clampedInterval(interval)
    return ValueObservable { observer in
      let state = ThrottleState<T, _>(lastEmission: clock.now)
      let alarm = makeAlarm(clock: clock, isolation: isolation) { _ in
        state.waiting = false
        state.lastEmission = clock.now
        if let value = state.pending.take() { observer.next(value) }
      }
      let upstream = self.subscribe { value in
        if state.waiting {
          if latest { state.pending = value }
          return
        }
        let now = clock.now
        let emission = state.emitted ? max(now, state.lastEmission.advanced(by: interval)) : now
        guard emission > now else {
          state.emitted = true
          state.lastEmission = now
          observer.next(value)
          return
        }
        state.pending = value
        state.waiting = true
        alarm.arm(after: now.duration(to: emission), repeating: nil)
      }
      return {
        alarm.cancel()
        upstream.unsubscribe()
      }
    }
  }
}

/// A throttle subscription's held value and last emission, touched only on the stream's actor.
@usableFromInline
final class ThrottleState<T, Instant> {
  @usableFromInline var pending: T?
  @usableFromInline var lastEmission: Instant
  @usableFromInline var emitted = false
  @usableFromInline var waiting = false

  @inlinable
  init(lastEmission: Instant) {
    self.lastEmission = lastEmission
  }
}
