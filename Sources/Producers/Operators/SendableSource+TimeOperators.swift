import IndefiniteObservable
import Multicast

extension SendableSource {
  /// Passes on a value only once `dueTime` has passed without a newer one, as a stream for the
  /// caller's actor: `stream(isolation:)`, then `ValueObservable.debounce(for:clock:isolation:)`.
  ///
  /// ```swift
  /// let query = SendableEmitter<String>()
  /// let searches = query.debounce(for: .milliseconds(300)).subscribe { search($0) }
  /// ```
  ///
  /// - Threading: any thread may send into the source; the result belongs to the caller's actor
  ///   (`isolation`, which the compiler passes), where each value is taken (at once when sent
  ///   from that actor, after a hop otherwise), timed and delivered. Code on no actor cannot
  ///   call it (the compiler rejects the call). The result is not `Sendable`.
  /// - Values: a `SendableCurrentValue`'s stream starts with the current value, so a subscription
  ///   passes it on `dueTime` after subscribing unless a write came first; a `SendableEmitter`'s
  ///   starts with the next value sent.
  /// - Lifetime and unsubscribe: as `ValueObservable.debounce(for:clock:isolation:)`: the
  ///   value still waiting when the subscription ends is dropped and its wait cancelled.
  ///
  /// - Parameters:
  ///   - dueTime: How long the source must be quiet before its last value is passed on. Any
  ///     duration: zero or less passes on the last value of each synchronous burst on the
  ///     actor's next turn; one past `Timers.maximumInterval` waits that long.
  ///   - clock: The clock that measures `dueTime`; a test passes one it controls.
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  @inlinable
  public func debounce(
    for dueTime: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).debounce(for: dueTime, clock: clock, isolation: isolation)
  }

  /// Passes on at most one value per `interval`, as a stream for the caller's actor:
  /// `stream(isolation:)`, then `ValueObservable.throttle(for:clock:latest:isolation:)`.
  ///
  /// ```swift
  /// let positions = SendableEmitter<Double>()
  /// let dragging = positions.throttle(for: .milliseconds(50), latest: true)
  ///   .subscribe { move(to: $0) }
  /// ```
  ///
  /// - Threading: any thread may send into the source; the result belongs to the caller's actor
  ///   (`isolation`, which the compiler passes), where each value is taken (at once when sent
  ///   from that actor, after a hop otherwise), timed and delivered. A value that may pass at
  ///   once is delivered as the actor takes it. Code on no actor cannot call it (the compiler
  ///   rejects the call). The result is not `Sendable`.
  /// - Values: a `SendableCurrentValue`'s stream starts with the current value, which passes at
  ///   once; a `SendableEmitter`'s starts with the next value sent.
  /// - Lifetime and unsubscribe: as `ValueObservable.throttle(for:clock:latest:isolation:)`:
  ///   the value held when the subscription ends is dropped and its wait cancelled.
  ///
  /// - Parameters:
  ///   - interval: The shortest time between two values passed on. Any duration: zero or less
  ///     passes every value at once; one past `Timers.maximumInterval` holds that long.
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
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).throttle(
      for: interval, clock: clock, latest: latest, isolation: isolation)
  }

  /// Passes on every value `interval` after the caller's actor took it, in order, as a stream
  /// for that actor: `stream(isolation:)`, then `ValueObservable.delay(for:clock:isolation:)`.
  ///
  /// ```swift
  /// let keystrokes = SendableEmitter<Character>()
  /// let echoing = keystrokes.delay(for: .milliseconds(250)).subscribe { echo($0) }
  /// ```
  ///
  /// - Threading: any thread may send into the source; the result belongs to the caller's actor
  ///   (`isolation`, which the compiler passes), where each value is taken (at once when sent
  ///   from that actor, after a hop otherwise), timed and delivered. The wait starts when the
  ///   actor takes the value. Code on no actor cannot call it (the compiler rejects the call).
  ///   The result is not `Sendable`.
  /// - Values: a `SendableCurrentValue`'s stream starts with the current value, delivered
  ///   `interval` after subscribing; a `SendableEmitter`'s starts with the next value sent.
  /// - Lifetime and unsubscribe: as `ValueObservable.delay(for:clock:isolation:)`: the values
  ///   still waiting when the subscription ends are dropped and their wait cancelled.
  ///
  /// - Parameters:
  ///   - interval: How long each value waits. Any duration: a negative one waits as zero does
  ///     (the actor's next turn); one past `Timers.maximumInterval` waits that long.
  ///   - clock: The clock that measures `interval`; a test passes one it controls.
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  @inlinable
  public func delay(
    for interval: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).delay(for: interval, clock: clock, isolation: isolation)
  }
}
