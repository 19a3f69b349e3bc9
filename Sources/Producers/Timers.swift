import Dispatch
import IndefiniteObservable
import Multicast

/// Timer streams: a repeating timer and a one-shot delay, built on Dispatch timer sources.
///
/// ```swift
/// let ticks = try Timers.every(.milliseconds(100))
/// let subscription = ticks.subscribe { tick in print(tick) }
/// // ...
/// subscription.unsubscribe()
/// ```
///
/// - Each subscription owns its own timer, started when it subscribes: two subscribers of one
///   stream tick independently.
/// - Threading: a stream is made on an actor (the main actor in top-level code and in
///   `@MainActor` types), and its ticks are delivered on that actor; the timer itself fires on
///   a private serial queue of the subscription's own. Code that is not isolated to an actor
///   cannot make a stream. The stream is not `Sendable`: subscribe and unsubscribe on the actor
///   that made it.
/// - Unsubscribe cancels the timer and releases it; once `unsubscribe()` returns, no tick is
///   delivered, including a tick that fired and waits for the actor.
/// - A busy actor: each fire of the timer is one tick, delivered in order once the actor is
///   free. Fires that Dispatch merged (its queue was late) are one tick with `merged` above 1.
/// - Lifetime: dropping the subscription does not stop the timer (subscriptions are
///   attach-and-forget); a one-shot delay releases its timer by itself after it fires.
///
/// ## Intervals, delays and leeway: one rule for `Duration` and `Double` seconds
///
/// 1. A value given in seconds must be finite (``TimerError/notFinite(_:)``).
/// 2. The sign is judged on the value as given: a repeating interval must be above zero
///    (``TimerError/notPositive(_:)``, or ``TimerError/notPositiveSeconds(_:)`` for `-0.0`, `0`
///    and any negative number of seconds); a delay may be zero but not negative
///    (``TimerError/negativeDelay(_:)``).
/// 3. The value is then rounded to the nearest nanosecond, Dispatch's resolution, and the
///    rounded value must lie within the limits: at least ``minimumInterval`` (1 ms) for a
///    repeating interval (``TimerError/tooShort(_:)``, ``TimerError/tooShortSeconds(_:)``),
///    and at most ``maximumInterval`` for an interval or a delay (``TimerError/tooLong(_:)``,
///    ``TimerError/tooLongSeconds(_:)``). A delay has no minimum: one that rounds to zero
///    fires as soon as the queue runs it.
/// 4. Leeway must not be negative (``TimerError/negativeLeeway(_:)``). Any larger leeway is
///    accepted: it only allows Dispatch to fire later, and Dispatch itself never lets a repeating
///    timer's leeway exceed half its interval. Leeway beyond ``maximumInterval`` is treated as
///    ``maximumInterval``.
///
/// Every error is thrown when the stream is made and quotes the value the caller passed, in the
/// form it was passed (see ``TimerError``). No `Double` and no `Duration`, even one whose seconds
/// do not fit in `Int64`, makes `Timers` trap.
public enum Timers {
  /// The shortest interval of a repeating timer: one millisecond.
  ///
  /// Measured on Linux with a bare Dispatch timer: at 1 ms one delivery per interval costs
  /// about 3% of a core; at 100 µs, 10,000 deliveries a second cost about 30%; at 10 µs and
  /// below the timer spins more than a whole core and Dispatch merges most fires, so the
  /// interval asked for is not the one delivered. An interval finer than this is a busy loop
  /// or a unit mistake (nanoseconds for milliseconds), and is refused rather than run.
  public static let minimumInterval: Duration = .milliseconds(1)

  /// The longest interval or delay: 2,000,000,000 seconds (about 63 years).
  ///
  /// Dispatch counts a deadline from boot and silently turns one of 2^62 units or more into
  /// "never" (on Linux the units are nanoseconds: about 146 years), so a longer delay would be a
  /// timer that never fires. This limit leaves some 80 years of uptime to spare, and its
  /// seconds still fit in the `Int` of 32-bit platforms, in which Dispatch counts intervals.
  public static let maximumInterval: Duration = .seconds(2_000_000_000)

  /// A stream that ticks every `interval`, first after one `interval`.
  ///
  /// ```swift
  /// let heartbeat = try Timers.every(.seconds(5), leeway: .milliseconds(100))
  /// ```
  ///
  /// - Parameters:
  ///   - interval: Time between ticks: from ``minimumInterval`` to ``maximumInterval``, after
  ///     rounding to the nanosecond.
  ///   - leeway: How late Dispatch may fire to save power; zero by default, never negative.
  ///   - isolation: The actor ticks are delivered on: the caller's, which the compiler passes.
  /// - Throws: ``TimerError/notPositive(_:)`` for a zero or negative interval,
  ///   ``TimerError/tooShort(_:)`` and ``TimerError/tooLong(_:)`` for one outside the limits,
  ///   ``TimerError/negativeLeeway(_:)`` for a negative leeway; each quotes the value passed.
  public static func every(
    _ interval: Duration,
    leeway: Duration = .zero,
    isolation: isolated any Actor = #isolation
  ) throws(TimerError) -> ValueObservable<Tick> {
    guard interval > .zero else { throw .notPositive(interval) }
    let nanoseconds = roundedNanoseconds(interval)
    guard nanoseconds <= maximumNanoseconds else { throw .tooLong(interval) }
    guard nanoseconds >= minimumNanoseconds else { throw .tooShort(interval) }
    return try repeating(every: nanoseconds, leeway: leeway, isolation: isolation)
  }

  /// A stream that ticks every `seconds` seconds; for intervals computed as `Double`.
  ///
  /// The same rule as ``every(_:leeway:isolation:)``, and delivered on the caller's actor: `seconds` is rounded to the nanosecond and must
  /// then lie from ``minimumInterval`` (`0.001`) to ``maximumInterval`` (`2e9`).
  ///
  /// - Throws: ``TimerError/notFinite(_:)`` for NaN or infinity of either sign,
  ///   ``TimerError/notPositiveSeconds(_:)`` for zero of either sign or a negative number,
  ///   ``TimerError/tooShortSeconds(_:)`` and ``TimerError/tooLongSeconds(_:)`` for one outside
  ///   the limits, each quoting `seconds` as passed; ``TimerError/negativeLeeway(_:)`` for a
  ///   negative leeway.
  /// - Parameters:
  ///   - seconds: Time between ticks, in seconds.
  ///   - leeway: How late Dispatch may fire to save power; zero by default, never negative.
  ///   - isolation: The actor ticks are delivered on: the caller's, which the compiler passes.
  public static func every(
    seconds: Double,
    leeway: Duration = .zero,
    isolation: isolated any Actor = #isolation
  ) throws(TimerError) -> ValueObservable<Tick> {
    guard seconds.isFinite else { throw .notFinite(seconds) }
    guard seconds > 0 else { throw .notPositiveSeconds(seconds) }
    // Compared in Double first, so that converting to `Duration` cannot overflow.
    guard seconds <= maximumSeconds + 1 else { throw .tooLongSeconds(seconds) }
    let nanoseconds = roundedNanoseconds(.seconds(seconds))
    guard nanoseconds <= maximumNanoseconds else { throw .tooLongSeconds(seconds) }
    guard nanoseconds >= minimumNanoseconds else { throw .tooShortSeconds(seconds) }
    return try repeating(every: nanoseconds, leeway: leeway, isolation: isolation)
  }

  /// A stream that ticks once, `delay` after each subscription, then releases its timer.
  ///
  /// A zero delay, or one that rounds to zero nanoseconds, ticks as soon as the timer's queue
  /// and then the actor run it.
  ///
  /// - Parameters:
  ///   - delay: Time until the tick: from zero to ``maximumInterval``.
  ///   - leeway: How late Dispatch may fire to save power; zero by default, never negative.
  ///   - isolation: The actor the tick is delivered on: the caller's, which the compiler
  ///     passes.
  /// - Throws: ``TimerError/negativeDelay(_:)`` for a negative delay,
  ///   ``TimerError/tooLong(_:)`` for one longer than ``maximumInterval``,
  ///   ``TimerError/negativeLeeway(_:)`` for a negative leeway; each quotes the value passed.
  public static func after(
    _ delay: Duration,
    leeway: Duration = .zero,
    isolation: isolated any Actor = #isolation
  ) throws(TimerError) -> ValueObservable<Tick> {
    guard delay >= .zero else { throw .negativeDelay(delay) }
    let nanoseconds = roundedNanoseconds(delay)
    guard nanoseconds <= maximumNanoseconds else { throw .tooLong(delay) }
    return stream(
      after: nanoseconds, repeating: .never, leeway: try leewayNanoseconds(leeway),
      isolation: isolation)
  }

  private static let minimumNanoseconds = roundedNanoseconds(minimumInterval)
  private static let maximumNanoseconds = roundedNanoseconds(maximumInterval)
  private static let maximumSeconds = Double(maximumInterval.components.seconds)

  /// A repeating stream of an interval already checked, in nanoseconds.
  private static func repeating(
    every nanoseconds: Int64, leeway: Duration, isolation: isolated any Actor
  ) throws(TimerError) -> ValueObservable<Tick> {
    stream(
      after: nanoseconds, repeating: dispatchInterval(nanoseconds),
      leeway: try leewayNanoseconds(leeway), isolation: isolation)
  }

  /// `duration`, not negative, rounded to the nearest nanosecond (halves up); `Int64.max` when
  /// it is too long to count in nanoseconds, which is past every limit.
  private static func roundedNanoseconds(_ duration: Duration) -> Int64 {
    // Compared before `components`, which traps on a duration past `Int64` seconds.
    guard duration < .seconds(Int64.max / 1_000_000_000) else { return .max }
    let (seconds, attoseconds) = duration.components
    return seconds * 1_000_000_000 + (attoseconds + 500_000_000) / 1_000_000_000
  }

  /// The leeway in nanoseconds, at most ``maximumInterval``'s.
  private static func leewayNanoseconds(_ leeway: Duration) throws(TimerError) -> Int64 {
    guard leeway >= .zero else { throw .negativeLeeway(leeway) }
    return min(roundedNanoseconds(leeway), maximumNanoseconds)
  }

  /// `nanoseconds`, at most ``maximumInterval``'s, as a Dispatch interval: in nanoseconds where
  /// `Int` can count them (always on 64-bit platforms); on 32-bit ones, in the finest unit it
  /// can, which loses less than a second and only past 24 days.
  private static func dispatchInterval(_ nanoseconds: Int64) -> DispatchTimeInterval {
    if let count = Int(exactly: nanoseconds) { return .nanoseconds(count) }
    if let count = Int(exactly: nanoseconds / 1_000) { return .microseconds(count) }
    if let count = Int(exactly: nanoseconds / 1_000_000) { return .milliseconds(count) }
    return .seconds(Int(clamping: nanoseconds / 1_000_000_000))
  }

  /// A stream whose every subscription starts a timer that first fires after `nanoseconds`.
  private static func stream(
    after nanoseconds: Int64,
    repeating interval: DispatchTimeInterval,
    leeway: Int64,
    isolation: isolated any Actor
  ) -> ValueObservable<Tick> {
    ValueObservable { observer in
      let gate = ObserverGate(isolation: isolation, observer.next)
      let timer = DispatchSource.makeTimerSource(
        queue: DispatchQueue(label: "IndefiniteObservable.Timers"))
      LiveResources.opened(.dispatchSources)
      let handler = TickHandler(timer: timer, gate: gate, once: interval == .never)
      timer.setEventHandler(handler: handler.fire)
      timer.setCancelHandler(handler: handler.release)
      timer.schedule(
        deadline: .now() + dispatchInterval(nanoseconds), repeating: interval,
        leeway: dispatchInterval(leeway))
      timer.activate()
      return handler.cancel
    }
  }
}

/// The per-subscription state of a timer: the source, the gate to the subscriber and the tick
/// count.
///
/// `@unchecked Sendable`: `tickCount`, `timer` and `next` are used only by `fire` and `release`,
/// which Dispatch runs on the timer's queue one at a time (a source's handlers never overlap);
/// `cancel` touches only `cancelTimer`, which is immutable and thread-safe, and `gate`, which
/// is thread-safe.
private final class TickHandler: @unchecked Sendable {
  private var timer: DispatchSourceTimer?
  private var next: ObserverGate<Tick>?
  private var tickCount = 0
  private let once: Bool
  private let cancelTimer: DispatchSourceTimer
  private let gate: ObserverGate<Tick>

  init(timer: DispatchSourceTimer, gate: ObserverGate<Tick>, once: Bool) {
    self.timer = timer
    self.cancelTimer = timer
    self.next = gate
    self.gate = gate
    self.once = once
    LiveResources.opened(.producerObservers)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Runs for each fire, on the timer's queue: sends the tick to the subscriber's actor.
  @Sendable func fire() {
    guard let timer, let next, !timer.isCancelled else { return }
    let merged = max(1, Int(timer.data))
    tickCount += merged
    if once { timer.cancel() }
    next.send(Tick(index: tickCount, merged: merged))
  }

  /// Runs once after cancellation, on the timer's queue: drops the gate and the source.
  @Sendable func release() {
    timer = nil
    next = nil
    LiveResources.closed(.dispatchSources)
  }

  /// The subscription's disconnect: closes the gate, so that no tick is delivered after it
  /// returns, and cancels the timer (idempotent, from any thread).
  func cancel() {
    gate.close()
    cancelTimer.cancel()
  }
}
