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
  ///   on that actor, by a task that runs there, so `T` need not be `Sendable`; the upstream's
  ///   send returns at once.
  /// - Unsubscribe: cancels the wait. Once `unsubscribe()` returns on the stream's actor, no
  ///   value is delivered; from another thread, a delivery already under way on the actor may
  ///   finish, and no other begins.
  /// - Cost: no allocation per value. Each burst starts one task on the actor, which sleeps on
  ///   `clock` until the burst's deadline, and once more for each later deadline that a newer
  ///   value set meanwhile (a `ContinuousClock` sleep allocates).
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
      let work = TimedWork()
      let state = DebounceState<T, _>(deadline: clock.now)
      let upstream = self.subscribe { value in
        state.pending = value
        state.deadline = clock.now.advanced(by: dueTime)
        guard !state.waiting else { return }
        state.waiting = true
        work.waiting(
          on: Task {
            _ = isolation  // runs the task on the stream's actor
            while true {
              let deadline = state.deadline
              do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
              guard !work.ended else { return }
              guard state.deadline == deadline else { continue }  // a newer value came
              state.waiting = false
              if let value = state.pending.take() { observer.next(value) }
              return
            }
          })
      }
      return {
        work.end()
        upstream.unsubscribe()
      }
    }
  }
}

/// A debounce subscription's value and deadline, touched only on the stream's actor.
@usableFromInline
final class DebounceState<T, Instant> {
  @usableFromInline var pending: T?
  @usableFromInline var deadline: Instant
  @usableFromInline var waiting = false

  @inlinable
  init(deadline: Instant) {
    self.deadline = deadline
  }
}
