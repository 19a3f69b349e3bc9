import Dispatch
import IndefiniteObservable

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
/// - Threading: ticks are delivered on `queue`, or on a private serial queue of the
///   subscription's own when `queue` is nil. Ticks of one subscription never overlap. You may
///   subscribe and unsubscribe from any thread.
/// - Unsubscribe cancels the timer and releases it. When `unsubscribe()` is called on the
///   delivery queue, no tick starts after it returns; called from another thread, a tick that
///   had already started may still finish.
/// - Lifetime: dropping the subscription does not stop the timer (subscriptions are
///   attach-and-forget); a one-shot delay releases its timer by itself after it fires.
/// - Bad input: a zero, negative, NaN, infinite or too long interval, or a negative leeway, is a
///   ``TimerError`` thrown when the stream is made.
public enum Timers {
  /// The shortest interval of a repeating timer: one millisecond.
  public static let minimumInterval: Duration = .milliseconds(1)

  /// The longest interval or delay: 4,000,000,000 seconds (about 126 years).
  public static let maximumInterval: Duration = .seconds(4_000_000_000)

  /// A stream that ticks every `interval`, first after one `interval`.
  ///
  /// - Parameters:
  ///   - interval: Time between ticks; must be positive.
  ///   - leeway: How late Dispatch may fire to save power; zero by default.
  ///   - queue: Where ticks are delivered; a private serial queue per subscription when nil.
  /// - Throws: ``TimerError`` for a non-positive or too long interval or a negative leeway.
  public static func every(
    _ interval: Duration,
    leeway: Duration = .zero,
    on queue: DispatchQueue? = nil
  ) throws(TimerError) -> ValueObservable<Tick> {
    let nanoseconds = try positiveNanoseconds(interval)
    let leewayNanoseconds = try validLeeway(leeway)
    return stream(
      after: nanoseconds, repeating: .nanoseconds(nanoseconds), leeway: leewayNanoseconds,
      on: queue)
  }

  /// A stream that ticks every `seconds` seconds; for intervals computed as `Double`.
  ///
  /// - Throws: ``TimerError/notFinite(_:)`` for NaN or infinity, and the errors of
  ///   ``every(_:leeway:on:)``.
  public static func every(
    seconds: Double,
    leeway: Duration = .zero,
    on queue: DispatchQueue? = nil
  ) throws(TimerError) -> ValueObservable<Tick> {
    guard seconds.isFinite else { throw .notFinite(seconds) }
    guard seconds < 9e9 else { throw .tooLong(.seconds(9e9)) }
    return try every(.nanoseconds(Int64((seconds * 1e9).rounded())), leeway: leeway, on: queue)
  }

  /// A stream that ticks once, `delay` after each subscription, then releases its timer.
  ///
  /// A zero delay ticks as soon as the queue runs it.
  ///
  /// - Throws: ``TimerError/notPositive(_:)`` for a negative delay, ``TimerError/tooLong(_:)``
  ///   for one too long for Dispatch, ``TimerError/negativeLeeway(_:)`` for a negative leeway.
  public static func after(
    _ delay: Duration,
    leeway: Duration = .zero,
    on queue: DispatchQueue? = nil
  ) throws(TimerError) -> ValueObservable<Tick> {
    guard delay >= .zero else { throw .notPositive(delay) }
    let nanoseconds = delay == .zero ? 0 : try positiveNanoseconds(delay)
    let leewayNanoseconds = try validLeeway(leeway)
    return stream(after: nanoseconds, repeating: .never, leeway: leewayNanoseconds, on: queue)
  }

  private static func positiveNanoseconds(_ duration: Duration) throws(TimerError) -> Int {
    guard duration > .zero else { throw .notPositive(duration) }
    let (seconds, attoseconds) = duration.components
    guard seconds < Int64(Int.max / 1_000_000_000) - 1 else { throw .tooLong(duration) }
    return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
  }

  private static func validLeeway(_ leeway: Duration) throws(TimerError) -> Int {
    guard leeway >= .zero else { throw .negativeLeeway(leeway) }
    return leeway == .zero ? 0 : try positiveNanoseconds(leeway)
  }

  /// A stream whose every subscription starts a timer that first fires after `nanoseconds`.
  private static func stream(
    after nanoseconds: Int,
    repeating interval: DispatchTimeInterval,
    leeway: Int,
    on queue: DispatchQueue?
  ) -> ValueObservable<Tick> {
    ValueObservable { observer in
      let delivery = queue ?? DispatchQueue(label: "IndefiniteObservable.Timers")
      let timer = DispatchSource.makeTimerSource(queue: delivery)
      LiveResources.opened(.dispatchSources)
      let handler = TickHandler(timer: timer, next: observer.next, once: interval == .never)
      timer.setEventHandler(handler: handler.fire)
      timer.setCancelHandler(handler: handler.release)
      timer.schedule(
        deadline: .now() + .nanoseconds(nanoseconds), repeating: interval,
        leeway: .nanoseconds(leeway))
      timer.activate()
      return handler.cancel
    }
  }
}

/// The per-subscription state of a timer: the source, the observer and the tick count.
///
/// `@unchecked Sendable`: `tickCount`, `timer` and `next` are used only by `fire` and `release`,
/// which Dispatch runs on the timer's target queue one at a time (a source's handlers never
/// overlap); `cancel` touches only `cancelTimer`, which is immutable and thread-safe.
private final class TickHandler: @unchecked Sendable {
  private var timer: DispatchSourceTimer?
  private var next: ((Tick) -> Void)?
  private var tickCount = 0
  private let once: Bool
  private let cancelTimer: DispatchSourceTimer

  init(timer: DispatchSourceTimer, next: @escaping (Tick) -> Void, once: Bool) {
    self.timer = timer
    self.cancelTimer = timer
    self.next = next
    self.once = once
    LiveResources.opened(.producerObservers)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Runs for each fire, on the delivery queue.
  @Sendable func fire() {
    guard let timer, let next, !timer.isCancelled else { return }
    let merged = max(1, Int(timer.data))
    tickCount += merged
    if once { timer.cancel() }
    next(Tick(index: tickCount, merged: merged))
  }

  /// Runs once after cancellation, on the delivery queue: drops the observer and the source.
  @Sendable func release() {
    timer = nil
    next = nil
    LiveResources.closed(.dispatchSources)
  }

  /// The subscription's disconnect: cancels the timer (idempotent, from any thread).
  func cancel() {
    cancelTimer.cancel()
  }
}
