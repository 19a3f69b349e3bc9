import Multicast

/// Timer streams: a repeating timer and a one-shot delay, on a clock.
///
/// ```swift
/// let ticks = Timers.every(.milliseconds(100))
/// let subscription = ticks.subscribe { tick in print(tick) }  // on the caller's actor
/// // ...
/// subscription.unsubscribe()
/// ```
///
/// Each factory returns a `Producer`: `subscribe { ... }` runs its subscriber on the caller's
/// actor, `subscribe(on: .sendingThread) { ... }` where the clock's alarm fires (from any code, on
/// an actor or not), and `stream()` gives the ticks on the caller's actor, to apply operators to.
///
/// - Each subscription owns its own timer, started when it subscribes: two subscribers of one
///   producer tick independently.
/// - Clock: `ContinuousClock` by default, as the time operators (`debounce`, `throttle`,
///   `delay`). On it (and on `SuspendingClock`) a timer is a `DispatchSourceTimer` on a private
///   serial queue of the subscription's own, which hands each fire to the subscriber's actor:
///   one thread switch per tick. On a ``ManualClock`` a timer ticks when a test advances the
///   clock, before `advance` returns. On any other clock, a task on the actor sleeps on it.
/// - Threading: any code may make a timer. A subscriber on an actor receives its ticks there; on
///   a clock other than `ContinuousClock`, `SuspendingClock` and ``ManualClock``, its task sleeps
///   on that actor, with no hop. A `.sendingThread` subscriber is `@Sendable` and runs where the
///   clock's alarm fires (the timer's queue; the task that calls
///   ``ManualClock/advance(by:isolation:)``, before it returns; a task of the global executor on
///   any other clock), with no thread switch by the package. One tick at a time, in order.
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

  /// A timer that ticks every `interval` on `clock`, first after one `interval`.
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
  public static func every(
    _ interval: Duration,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock()
  ) -> Producer<Tick> {
    let interval = clamped(interval)
    return timer(after: interval, repeating: interval, leeway: leeway, clock: clock)
  }

  /// A timer that ticks every `seconds` seconds on `clock`; for intervals computed as `Double`.
  ///
  /// The same as ``every(_:leeway:clock:)`` with `.seconds(seconds)`, clamped the same way
  /// (zero, negative and sub-millisecond intervals tick every millisecond), except that a number
  /// that is no time at all is refused: a computed interval can be NaN or infinite, where
  /// `Duration.seconds(_:)` would trap.
  ///
  /// - Throws: ``TimerError/notFinite(_:)`` for NaN or infinity of either sign, quoting
  ///   `seconds`.
  public static func every(
    seconds: Double,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock()
  ) throws(TimerError) -> Producer<Tick> {
    every(try interval(seconds: seconds), leeway: leeway, clock: clock)
  }

  /// A timer that ticks once, `delay` after each subscription on `clock`, then releases itself.
  ///
  /// A delay of zero or less ticks as soon as the timer and then the subscriber's actor run it.
  ///
  /// - Parameters:
  ///   - delay: Time until the tick, clamped to zero...``maximumInterval``.
  ///   - leeway: How late the clock may fire to save power; zero by default (a negative one
  ///     is zero).
  ///   - clock: The clock that measures `delay`: `ContinuousClock` by default; a test passes a
  ///     ``ManualClock``.
  public static func after(
    _ delay: Duration,
    leeway: Duration = .zero,
    clock: some Clock<Duration> = ContinuousClock()
  ) -> Producer<Tick> {
    timer(after: delay, repeating: nil, leeway: leeway, clock: clock)
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

  /// A timer whose subscriptions each start an alarm on `clock`, which first fires after `delay`,
  /// then every `interval` when one is given, and sends each fire's tick to the subscriber's
  /// gate (on the gate's actor, where it has one). A one-shot alarm lets its timer go by itself
  /// once it has fired.
  private static func timer<C: Clock<Duration>>(
    after delay: Duration, repeating interval: Duration?, leeway: Duration, clock: C
  ) -> Producer<Tick> {
    Producer { gate in
      let alarm = makeAlarm(
        clock: clock, leeway: leeway, firing: gate, on: gate.actor, once: interval == nil)
      alarm.arm(after: delay, repeating: interval)
      return alarm.cancel
    }
  }
}
