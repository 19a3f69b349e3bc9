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
  ///   returns, on the next turn of the actor.
  /// - Without completion: a stream never ends, so nothing waits for an end. The values still
  ///   waiting when the subscription ends are dropped, and their wait cancelled.
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes): subscribe and send into it there. Values are delivered on that actor, by a task
  ///   that runs there, so `T` need not be `Sendable`.
  /// - Unsubscribe: cancels the wait. Once `unsubscribe()` returns on the stream's actor, no
  ///   value is delivered; from another thread, a delivery already under way on the actor may
  ///   finish, and no other begins.
  /// - Cost: no allocation per value once the subscription's queue has grown to the number of
  ///   values in flight (it doubles when full and keeps its size). While values wait, one task
  ///   on the actor delivers them: it starts when a value arrives with none waiting, and sleeps
  ///   on `clock` once for each value not yet due when the one before it was delivered (a
  ///   `ContinuousClock` sleep allocates).
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
      let work = TimedWork()
      let state = DelayState<T, _>(instantsLike: clock.now)
      let upstream = self.subscribe { value in
        state.values.append((value, clock.now.advanced(by: interval)))
        guard !state.waiting else { return }
        state.waiting = true
        work.waiting(
          on: Task {
            _ = isolation  // runs the task on the stream's actor
            while let due = state.values.first?.due {
              if clock.now < due {
                do { try await clock.sleep(until: due, tolerance: nil) } catch { return }
              }
              guard !work.ended else { return }
              if let value = state.values.popFirst()?.value { observer.next(value) }
            }
            state.waiting = false
          })
      }
      return {
        work.end()
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

  /// An empty queue, for deadlines of the type of `instantsLike`.
  @inlinable
  init(instantsLike _: Instant) {}
}
