import IndefiniteObservable

extension ValueObservable {
  /// Passes on every value `interval` after it arrived, in the order they arrived.
  ///
  /// ```swift
  /// let echoes = keystrokes.delay(for: .milliseconds(250))
  /// ```
  ///
  /// As Combine's `delay(for:scheduler:)`, with a `Clock` in place of a scheduler.
  ///
  /// - Order: values are delivered in the order they arrived, each no earlier than `interval`
  ///   after its arrival on `clock`. A zero `interval` still delivers after the upstream's send
  ///   returns, on a later turn of the actor; so does a value sent while one is being delivered.
  /// - Without completion: a stream never ends, so nothing waits for an end. The values still
  ///   waiting when the subscription ends are dropped, and their wait cancelled.
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes): subscribe and send into it there. Values are delivered on that actor, so `T`
  ///   need not be `Sendable`.
  /// - Unsubscribe: cancels the wait. Once `unsubscribe()` returns on the stream's actor, no
  ///   value is delivered; from another thread, a delivery already under way on the actor may
  ///   finish, and no other begins.
  /// - Cost: no allocation per value once the subscription's queue has grown to the number of
  ///   values in flight (it doubles when full and keeps its size). Each subscription has one
  ///   alarm on `clock` (the module's one timer mechanism: a Dispatch timer for
  ///   `ContinuousClock`, whose fire hops once to the actor), armed when a value arrives with
  ///   none waiting, and once for each value not yet due when the one before it was delivered.
  /// - Testing: with a `ManualClock`, `advance(by:)` delivers the values that became due before
  ///   it returns. A zero `interval` is then due at the clock's present: the next advance, even
  ///   by zero, delivers it.
  ///
  /// - Parameters:
  ///   - interval: How long each value waits. Any duration, as Combine takes any stride: a
  ///     negative one waits as zero does; one longer than `Timers.maximumInterval` (about 63
  ///     years) waits that long, which in practice is never, as Combine's `distantFuture`.
  ///   - clock: The clock that measures `interval`; a test passes one it controls.
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  @inlinable
  public func delay(
    for interval: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<T> {
    let interval = clampedInterval(interval)
    return ValueObservable { observer in
      let state = DelayState<T, _>(instantsLike: clock.now)
      let alarm = makeAlarm(clock: clock, isolation: isolation) { _ in
        // Only the values that waited when this turn began: one sent during a delivery waits
        // for a later turn, as the first did (a loop fed back through a zero delay lets the
        // actor's other work run between its values).
        var waited = state.values.count
        while waited > 0, let due = state.values.first?.due {
          let remaining = clock.now.duration(to: due)
          guard remaining <= .zero else {
            state.alarm?.arm(after: remaining, repeating: nil)
            return
          }
          // A subscriber that unsubscribes stops the values after its own.
          guard state.alarm?.isCancelled == false else { return }
          waited -= 1
          if let value = state.values.popFirst()?.value { observer.next(value) }
        }
        guard let due = state.values.first?.due, state.alarm?.isCancelled == false else {
          state.waiting = false
          return
        }
        state.alarm?.arm(after: max(.zero, clock.now.duration(to: due)), repeating: nil)
      }
      state.alarm = alarm
      let upstream = self.subscribe { value in
        state.values.append((value, clock.now.advanced(by: interval)))
        guard !state.waiting else { return }
        state.waiting = true
        alarm.arm(after: interval, repeating: nil)
      }
      return {
        alarm.cancel()
        upstream.unsubscribe()
      }
    }
  }
}

/// A delay subscription's values in flight, oldest first, each with its deadline, and whether a
/// task waits for them. Touched only on the stream's actor.
@usableFromInline
final class DelayState<T, Instant> {
  @usableFromInline var values = PendingValues<(value: T, due: Instant)>()
  @usableFromInline var waiting = false
  // The subscription's alarm, which its own closure re-arms; released when the alarm is
  // cancelled (the closure that holds this state goes with it).
  @usableFromInline var alarm: (any Alarm)?

  /// An empty queue, for deadlines of the type of `instantsLike`.
  @inlinable
  init(instantsLike _: Instant) {}
}
