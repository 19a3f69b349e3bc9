import IndefiniteObservable

extension ValueObservable {
  /// Connects this stream `interval` after each subscription, rather than at once; RxSwift's
  /// `delaySubscription(_:scheduler:)`, with a `Clock` in place of a scheduler (Combine has none).
  ///
  /// ```swift
  /// let retry = connection.delaySubscription(for: .seconds(2))
  /// ```
  ///
  /// Only the connection waits: once connected, this stream's values pass on as they arrive,
  /// undelayed. (``delay(for:clock:isolation:)`` holds back each value instead.)
  ///
  /// - Connecting: each subscription waits `interval` on `clock`, then connects this stream on
  ///   the stream's actor. Nothing is connected inside `subscribe`, even for a zero `interval`:
  ///   it connects on the actor's next turn. Each subscription waits and connects on its own.
  /// - Unsubscribing before the wait is over cancels it, and this stream is never connected;
  ///   after, it disconnects this stream. Once `unsubscribe()` returns, nothing more is
  ///   delivered, including the values this stream sends while it connects, and a connection
  ///   ended from inside one of those values is disconnected as soon as its connect returns.
  /// - Without completion: RxSwift's `delaySubscription` also delays a completion or error that
  ///   a stream here never has; everything else is the same.
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes): subscribe and unsubscribe there. This stream is connected there, and its values
  ///   are passed on where it sends them, so `T` need not be `Sendable`.
  /// - Cost: one alarm on `clock` per subscription (the module's one timer mechanism: a
  ///   Dispatch timer for `ContinuousClock`, whose fire hops once to the actor), let go of once
  ///   it has fired; nothing per value beyond a check that the subscription goes on.
  /// - Testing: with a `ManualClock`, the `advance(by:)` that reaches the end of the wait
  ///   connects this stream before it returns; a zero `interval` is due at the clock's present,
  ///   so the next advance, even by zero, connects it.
  ///
  /// - Parameters:
  ///   - interval: How long each subscription waits to connect. Any duration, as RxSwift takes
  ///     any time interval: a negative one waits as zero does; one longer than
  ///     `Timers.maximumInterval` (about 63 years) waits that long, which in practice is never.
  ///   - clock: The clock that measures `interval`; a test passes one it controls.
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  @inlinable
  public func delaySubscription(
    for interval: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<T> {
    let interval = clampedInterval(interval)
    return ValueObservable { observer in
      let state = DelayedConnection()
      let alarm = makeAlarm(clock: clock, isolation: isolation) { _ in
        state.connect {
          self.subscribe { value in
            if !state.isEnded { observer.next(value) }
          }
        }
      }
      state.alarm = alarm
      alarm.arm(after: interval, repeating: nil)
      return state.end
    }
  }
}

/// A `delaySubscription` subscription's alarm until it fires, then its connection of the
/// upstream, and whether it has ended. Touched only on the stream's actor.
@usableFromInline
final class DelayedConnection {
  // The alarm, whose closure holds this state: a cycle that `connect` or `end` breaks by
  // cancelling it, which releases the closure.
  @usableFromInline var alarm: (any Alarm)?
  @usableFromInline var upstream: Subscription?
  @usableFromInline var isEnded = false

  /// Waiting for its alarm.
  @inlinable
  init() {}

  /// Lets the alarm go (its closure, running now, is released when it returns), then connects
  /// with `subscribe`, unless the subscription has ended, before or while it connects.
  @inlinable
  func connect(_ subscribe: () -> Subscription) {
    alarm.take()?.cancel()
    guard !isEnded else { return }
    let subscription = subscribe()
    if isEnded {
      subscription.unsubscribe()
    } else {
      upstream = subscription
    }
  }

  /// Ends the subscription: cancels the wait, or disconnects the upstream. Calling it again
  /// does nothing.
  @inlinable
  func end() {
    isEnded = true
    alarm.take()?.cancel()
    upstream.take()?.unsubscribe()
  }
}
