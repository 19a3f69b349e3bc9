import IndefiniteObservable
import Multicast

/// Timer streams: a repeating timer and a one-shot delay, on a clock.
///
/// ```swift
/// let ticks = Timers.every(.milliseconds(100))
/// let subscription = ticks.subscribe { tick in print(tick) }
/// // ...
/// subscription.unsubscribe()
/// ```
///
/// - Each subscription owns its own timer, started when it subscribes: two subscribers of one
///   stream tick independently.
/// - Clock: `ContinuousClock` by default, as the time operators (`debounce`, `throttle`,
///   `delay`). On it (and on `SuspendingClock`) a timer is a `DispatchSourceTimer` on a private
///   serial queue of the subscription's own, which hands each fire to the subscriber's actor:
///   one thread switch per tick. On a ``ManualClock`` a timer ticks when a test advances the
///   clock, before `advance` returns. On any other clock, a task on the actor sleeps on it.
/// - Threading: a stream is made on an actor (the main actor in top-level code and in
///   `@MainActor` types), and its ticks are delivered on that actor. Code that is not isolated
///   to an actor cannot make a stream. The stream is not `Sendable`: subscribe and unsubscribe
///   on the actor that made it.
/// - Where the alarm fires: ``every(_:leeway:clock:on:_:)``, ``every(seconds:leeway:clock:on:_:)``
///   and ``after(_:leeway:clock:on:_:)`` with `.sendingThread` subscribe a `@Sendable` closure,
///   from any isolation, that runs on the thread where the clock's alarm fires (the timer's
///   queue; the advancing task of a ``ManualClock``), with no thread switch by the package.
/// - Unsubscribe cancels the timer and releases it; once `unsubscribe()` returns, no tick is
///   delivered, including a tick that fired and waits for the actor.
/// - A busy actor: each fire of the timer is one tick, delivered in order once the actor is
///   free. Fires that Dispatch merged (its queue was late) are one tick with `merged` above 1.
/// - Lifetime: dropping the subscription does not stop the timer (subscriptions are
///   attach-and-forget); a one-shot delay releases its timer by itself after it fires.
///
/// ## Intervals, delays and leeway: no error, one rule
///
/// Like `debounce`, `throttle` and `delay`, and Combine's `Timer.publish`, making a timer
/// cannot fail: every `Duration` is taken, and clamped to what a timer can wait.
///
/// - A repeating interval is clamped to ``minimumInterval``...``maximumInterval``: zero, a
///   negative interval and one below a millisecond tick every millisecond (as Foundation's
///   `Timer` turns a non-positive interval into its shortest one, rather than spin), and one
///   longer than about 63 years ticks that often, which is in practice never.
/// - A delay of zero or less fires at once (on the actor's next turn); one longer than
///   ``maximumInterval`` waits that long.
/// - Leeway below zero is zero; it only allows Dispatch to fire later, and Dispatch itself
///   never lets a repeating timer's leeway exceed half its interval.
///
/// Times are rounded to the nanosecond, Dispatch's resolution. No `Duration` makes `Timers`
/// trap.
public enum Timers {
  /// The shortest interval of a repeating timer: one millisecond; a shorter one is clamped to
  /// it.
  ///
  /// Measured on Linux with a bare Dispatch timer: at 1 ms one delivery per interval costs
  /// about 3% of a core; at 100 µs, 10,000 deliveries a second cost about 30%; at 10 µs and
  /// below the timer spins more than a whole core and Dispatch merges most fires, so the
  /// interval asked for is not the one delivered. An interval finer than this is a busy loop
  /// or a unit mistake (nanoseconds for milliseconds).
  public static let minimumInterval: Duration = .milliseconds(1)

  /// The longest interval or delay: 2,000,000,000 seconds (about 63 years); a longer one is
  /// clamped to it.
  ///
  /// Dispatch counts a deadline from boot and silently turns one of 2^62 units or more into
  /// "never" (on Linux the units are nanoseconds: about 146 years), so a longer delay would be a
  /// timer that never fires. This limit leaves some 80 years of uptime to spare, and its
  /// seconds still fit in the `Int` of 32-bit platforms, in which Dispatch counts intervals.
  public static let maximumInterval: Duration = .seconds(2_000_000_000)

  /// A stream that ticks every `interval` on `clock`, first after one `interval`.
  ///
  /// ```swift
  /// let heartbeat = Timers.every(.seconds(5), leeway: .milliseconds(100))
  /// ```
  ///
  /// - Parameters:
  ///   - interval: Time between ticks, clamped to ``minimumInterval``...``maximumInterval``.
  ///   - leeway: How late the clock may fire to save power; zero by default (a negative one
  ///     is zero).
  ///   - clock: The clock that measures `interval`: `ContinuousClock` by default; a test
  ///     passes a ``ManualClock``.
  ///   - isolation: The actor ticks are delivered on: the caller's, which the compiler passes.
  public static func every(
    _ interval: Duration,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Tick> {
    let interval = clamped(interval)
    return GatedConnection.stream(isolation: isolation) { gate in
      start(gate, on: isolation, after: interval, repeating: interval, leeway: leeway, clock: clock)
    }
  }

  /// A stream that ticks every `seconds` seconds on `clock`; for intervals computed as
  /// `Double`.
  ///
  /// The same as ``every(_:leeway:clock:isolation:)`` with `.seconds(seconds)`, clamped the
  /// same way (zero, negative and sub-millisecond intervals tick every millisecond), except
  /// that a number that is no time at all is refused: a computed interval can be NaN or
  /// infinite, where `Duration.seconds(_:)` would trap.
  ///
  /// - Throws: ``TimerError/notFinite(_:)`` for NaN or infinity of either sign, quoting
  ///   `seconds`.
  public static func every(
    seconds: Double,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) throws(TimerError) -> ValueObservable<Tick> {
    every(try interval(seconds: seconds), leeway: leeway, clock: clock, isolation: isolation)
  }

  /// A stream that ticks once, `delay` after each subscription on `clock`, then releases its
  /// timer.
  ///
  /// A delay of zero or less ticks as soon as the timer and then the actor run it.
  ///
  /// - Parameters:
  ///   - delay: Time until the tick, clamped to zero...``maximumInterval``.
  ///   - leeway: How late the clock may fire to save power; zero by default (a negative one
  ///     is zero).
  ///   - clock: The clock that measures `delay`: `ContinuousClock` by default; a test passes a
  ///     ``ManualClock``.
  ///   - isolation: The actor the tick is delivered on: the caller's, which the compiler
  ///     passes.
  public static func after(
    _ delay: Duration,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Tick> {
    GatedConnection.stream(isolation: isolation) { gate in
      start(gate, on: isolation, after: delay, repeating: nil, leeway: leeway, clock: clock)
    }
  }

  /// Subscribes `next` to a timer that ticks every `interval` on `clock`, first after one
  /// `interval`, to run on the thread where the clock's alarm fires: no thread switch by the
  /// package.
  ///
  /// ```swift
  /// let beats = LockedState(0)
  /// let heartbeat = Timers.every(.seconds(5), on: .sendingThread) { _ in
  ///   beats.withLock { $0 += 1 }
  /// }
  /// ```
  ///
  /// The spelling and the contract of `subscribe(on: .sendingThread)` on a `SendableEmitter`,
  /// for code with no actor to run on (a server, a command-line tool):
  ///
  /// - Threading: callable from any isolation. `next` is `@Sendable` and runs where the alarm
  ///   fires: on `ContinuousClock` and `SuspendingClock`, the serial queue of the subscription's
  ///   `DispatchSourceTimer`; on a ``ManualClock``, the task that calls
  ///   ``ManualClock/advance(by:isolation:)``, before it returns; on any other clock, a task on
  ///   the global executor that sleeps on it. One tick at a time, in order. Fires that Dispatch
  ///   merged (a `next` slower than the interval) are one tick with `merged` above 1.
  /// - Intervals and leeway: clamped as for ``every(_:leeway:clock:isolation:)``; no `Duration`
  ///   is refused.
  /// - Lifetime: the timer starts now and runs until `unsubscribe()`, which cancels and
  ///   releases it, from any thread, `next` included; no call of `next` begins after it returns
  ///   (one under way on another thread may finish). Dropping the subscription does not
  ///   unsubscribe: the timer then ticks for the life of the process.
  ///
  /// - Parameters:
  ///   - interval: Time between ticks, clamped to ``minimumInterval``...``maximumInterval``.
  ///   - leeway: How late the clock may fire to save power; zero by default (a negative one
  ///     is zero).
  ///   - clock: The clock that measures `interval`: `ContinuousClock` by default; a test
  ///     passes a ``ManualClock``.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each tick, where the alarm fires.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func every(
    _ interval: Duration,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock(),
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Tick) -> Void
  ) -> SendableSubscription {
    let interval = clamped(interval)
    return GatedConnection.subscription(ObserverGate(next)) { gate in
      start(gate, on: nil, after: interval, repeating: interval, leeway: leeway, clock: clock)
    }
  }

  /// Subscribes `next` to a timer that ticks every `seconds` seconds on `clock`, to run where the
  /// clock's alarm fires; for intervals computed as `Double` (see
  /// ``every(_:leeway:clock:on:_:)`` for the threading and the lifetime).
  ///
  /// - Throws: ``TimerError/notFinite(_:)`` for NaN or infinity of either sign, quoting
  ///   `seconds`; nothing is started then.
  /// - Parameters:
  ///   - seconds: Time between ticks, clamped as ``every(seconds:leeway:clock:isolation:)``
  ///     says.
  ///   - leeway: How late the clock may fire to save power; zero by default.
  ///   - clock: The clock that measures the interval: `ContinuousClock` by default.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each tick, where the alarm fires.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func every(
    seconds: Double,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock(),
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Tick) -> Void
  ) throws(TimerError) -> SendableSubscription {
    every(try interval(seconds: seconds), leeway: leeway, clock: clock, on: delivery, next)
  }

  /// Subscribes `next` to a timer that ticks once, `delay` after now on `clock`, to run where the
  /// clock's alarm fires; the timer is released after it fires (see
  /// ``every(_:leeway:clock:on:_:)`` for the threading).
  ///
  /// `unsubscribe()` before the tick cancels it: no call of `next` begins after it returns.
  ///
  /// - Parameters:
  ///   - delay: Time until the tick, clamped to zero...``maximumInterval``.
  ///   - leeway: How late the clock may fire to save power; zero by default.
  ///   - clock: The clock that measures `delay`: `ContinuousClock` by default.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with the tick, where the alarm fires.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func after(
    _ delay: Duration,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock(),
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Tick) -> Void
  ) -> SendableSubscription {
    GatedConnection.subscription(ObserverGate(next)) { gate in
      start(gate, on: nil, after: delay, repeating: nil, leeway: leeway, clock: clock)
    }
  }

  private static let maximumSeconds = Double(maximumInterval.components.seconds)

  /// A repeating interval clamped to ``minimumInterval``...``maximumInterval``.
  private static func clamped(_ interval: Duration) -> Duration {
    min(max(interval, minimumInterval), maximumInterval)
  }

  /// `seconds` as an interval, clamped; NaN and infinities are refused.
  private static func interval(seconds: Double) throws(TimerError) -> Duration {
    guard seconds.isFinite else { throw .notFinite(seconds) }
    // Clamped in Double first, so that converting to `Duration` cannot overflow.
    return Duration.seconds(min(max(seconds, 0), maximumSeconds))
  }

  /// The core of every form: starts one subscription's alarm on `clock`, which first fires after
  /// `delay`, then every `interval` when one is given, and sends each fire's tick to `gate`
  /// (bound to `actor`, or nil for a `@Sendable` gate); returns what cancels it. A one-shot
  /// alarm lets its timer go by itself once it has fired.
  private static func start(
    _ gate: ObserverGate<Tick>,
    on actor: (any Actor)?,
    after delay: Duration,
    repeating interval: Duration?,
    leeway: Duration,
    clock: some Clock<Duration>
  ) -> @Sendable () -> Void {
    let alarm = makeAlarm(
      clock: clock, leeway: leeway, firing: gate, on: actor, once: interval == nil)
    alarm.arm(after: delay, repeating: interval)
    return alarm.cancel
  }
}
