import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// One attosecond: the finest `Duration`.
private let attosecond = Duration(secondsComponent: 0, attosecondsComponent: 1)

/// Minus one attosecond.
private let minusAttosecond = Duration(secondsComponent: 0, attosecondsComponent: -1)

/// A duration whose seconds do not fit in `Int64`: `Duration` holds it, but its `components`
/// trap.
private let beyondInt64Seconds = Duration.seconds(Int64.max) + .seconds(Int64.max)

/// The description of the error `body` throws, or "" when it throws none.
private func describedError(_ body: () throws -> Void) -> String {
  do {
    try body()
    return ""
  } catch {
    return String(describing: error)
  }
}

/// Collects ticks and lets a test wait for them without blocking its actor (ticks are delivered
/// on the actor that made the stream: a blocked main actor would never receive them).
private final class TickRecorder: @unchecked Sendable {
  // `recorded` and `taken` are guarded by `lock`.
  private let lock = NSLock()
  private var recorded: [Tick] = []
  // How many ticks the waits so far have consumed, as a semaphore's waits would.
  private var taken = 0

  func record(_ tick: Tick) {
    lock.withLock { recorded.append(tick) }
  }

  var ticks: [Tick] {
    lock.withLock { recorded }
  }

  /// Whether one more tick arrives within `interval`.
  func arrivedWithin(_ interval: Duration) async -> Bool {
    await take(1, within: interval)
  }

  /// Waits for `count` more ticks, for at most 60 seconds in all; false if they did not come.
  /// The bound only keeps a timer that never ticks from hanging the test: a loaded machine under
  /// ThreadSanitizer needs no more than a fraction of it.
  func waitForTicks(_ count: Int) async -> Bool {
    await take(count, within: .seconds(60))
  }

  /// Waits for `count` more ticks, for at most `interval` in all; false if they did not come.
  func waitForTicks(_ count: Int, within interval: Duration) async -> Bool {
    await take(count, within: interval)
  }

  private func take(_ count: Int, within interval: Duration) async -> Bool {
    let target = lock.withLock { taken + count }
    let deadline = ContinuousClock.now + interval
    while lock.withLock({ recorded.count }) < target {
      if ContinuousClock.now > deadline { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
    lock.withLock { taken = target }
    return true
  }
}

/// An actor of its own, to check that ticks reach the actor that made the stream.
private actor TickCounter {
  var count = 0
  private var subscription: Subscription?

  func start() throws {
    subscription = try Timers.every(.milliseconds(2)).subscribe { _ in
      self.assertIsolated()  // the timer fires on a Dispatch queue; the subscriber runs here
      self.count += 1
    }
  }

  func stop() {
    subscription?.unsubscribe()
  }
}

@MainActor @Suite(.checksLiveResources) struct TimersTests {
  @Test func repeatingTimerTicksWithIncreasingIndices() async throws {
    let recorder = TickRecorder()
    let subscription = try Timers.every(.milliseconds(5)).subscribe(recorder.record)
    #expect(await recorder.waitForTicks(3))
    subscription.unsubscribe()
    let ticks = recorder.ticks
    #expect(ticks.first?.index == ticks.first?.merged)
    #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.index == $0.index + $1.merged })
  }

  @Test func oneShotDelayTicksOnce() async throws {
    let recorder = TickRecorder()
    try Timers.after(.milliseconds(5)).subscribe(recorder.record)
    #expect(await recorder.waitForTicks(1))
    #expect(await recorder.waitForTicksWithin(milliseconds: 100) == false)
    #expect(recorder.ticks == [Tick(index: 1)])
  }

  @Test func unsubscribeInTheSubscriberStopsTicksAtOnce() async throws {
    let recorder = TickRecorder()
    var subscription: Subscription?
    subscription = try Timers.every(.milliseconds(1)).subscribe { tick in
      recorder.record(tick)
      if tick.index >= 2 { subscription?.unsubscribe() }
    }
    #expect(await eventually { (recorder.ticks.last?.index ?? 0) >= 2 })
    let countAtUnsubscribe = recorder.ticks.count
    // Twenty intervals later, still no further tick, though fires may have waited for the actor.
    try await Task.sleep(for: .milliseconds(20))
    #expect(recorder.ticks.count == countAtUnsubscribe)
    #expect(recorder.ticks.last?.index == 2 || recorder.ticks.last.map { $0.merged > 1 } == true)
  }

  @Test func unsubscribeDropsTicksThatWaitForTheBusyActor() async throws {
    let recorder = TickRecorder()
    let subscription = try Timers.every(.milliseconds(1)).subscribe(recorder.record)
    usleep(30_000)  // the main actor is busy: fires wait for it
    subscription.unsubscribe()
    try await Task.sleep(for: .milliseconds(20))
    #expect(recorder.ticks.isEmpty)
  }

  @Test func eachSubscriptionOwnsItsTimer() async throws {
    let ticks = try Timers.after(.milliseconds(1))
    let first = TickRecorder()
    let second = TickRecorder()
    ticks.subscribe(first.record)
    ticks.subscribe(second.record)
    #expect(await first.waitForTicks(1))
    #expect(await second.waitForTicks(1))
  }

  @Test func firesThatWaitedForABusyActorAreAllDeliveredInOrder() async throws {
    let recorder = TickRecorder()
    let subscription = try Timers.every(.milliseconds(2)).subscribe(recorder.record)
    // Keep the main actor busy for well over one interval, then let the ticks through.
    usleep(60_000)
    #expect(await recorder.waitForTicks(10))
    subscription.unsubscribe()
    let ticks = recorder.ticks
    // No fire is lost: each index counts the fires before it, merged or not.
    #expect(ticks.first?.index == ticks.first?.merged)
    #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.index == $0.index + $1.merged })
  }

  @Test(arguments: [
    (Duration.zero, TimerError.notPositive(.zero)),
    (.milliseconds(-1), .notPositive(.milliseconds(-1))),
    (.nanoseconds(Int64.min), .notPositive(.nanoseconds(Int64.min))),
    (attosecond, .tooShort(attosecond)),
    (.nanoseconds(1), .tooShort(.nanoseconds(1))),
    (.nanoseconds(999_999), .tooShort(.nanoseconds(999_999))),
    (Timers.maximumInterval + .nanoseconds(1), .tooLong(Timers.maximumInterval + .nanoseconds(1))),
    (.seconds(Int64.max), .tooLong(.seconds(Int64.max))),
    (beyondInt64Seconds, .tooLong(beyondInt64Seconds)),
    (.seconds(1e20), .tooLong(.seconds(1e20))),
    (.zero - beyondInt64Seconds, .notPositive(.zero - beyondInt64Seconds)),
  ])
  func badIntervalsThrowWhenTheStreamIsMade(interval: Duration, error: TimerError) {
    #expect(throws: error) { try Timers.every(interval) }
  }

  @Test(arguments: [
    (-1e10, TimerError.notPositiveSeconds(-1e10)),
    (-0.0, .notPositiveSeconds(-0.0)),
    (0, .notPositiveSeconds(0)),
    (Double.leastNonzeroMagnitude, .tooShortSeconds(.leastNonzeroMagnitude)),
    (4e-10, .tooShortSeconds(4e-10)),
    (1e-9, .tooShortSeconds(1e-9)),
    // 999,999.4 ns: rounds to 999,999 ns, one short of the minimum.
    (0.000_999_999_4, .tooShortSeconds(0.000_999_999_4)),
    (2e9.nextUp, .tooLongSeconds(2e9.nextUp)),
    (1e10, .tooLongSeconds(1e10)),
    (1e300, .tooLongSeconds(1e300)),
    (Double.infinity, .notFinite(.infinity)),
    (-Double.infinity, .notFinite(-.infinity)),
  ])
  func badSecondsThrowTheValuePassed(seconds: Double, error: TimerError) {
    #expect(throws: error) { try Timers.every(seconds: seconds) }
  }

  @Test func notANumberOfSecondsThrowsNotFinite() {
    #expect {
      try Timers.every(seconds: .nan)
    } throws: { error in
      guard case .notFinite(let seconds) = error as? TimerError else { return false }
      return seconds.isNaN
    }
  }

  @Test(arguments: [
    (minusAttosecond, TimerError.negativeDelay(minusAttosecond)),
    (.seconds(-1), .negativeDelay(.seconds(-1))),
    (.nanoseconds(Int64.min), .negativeDelay(.nanoseconds(Int64.min))),
    (Timers.maximumInterval + .nanoseconds(1), .tooLong(Timers.maximumInterval + .nanoseconds(1))),
    (.seconds(Int64.max), .tooLong(.seconds(Int64.max))),
    (beyondInt64Seconds, .tooLong(beyondInt64Seconds)),
    (.zero - beyondInt64Seconds, .negativeDelay(.zero - beyondInt64Seconds)),
  ])
  func badDelaysThrowWhenTheStreamIsMade(delay: Duration, error: TimerError) {
    #expect(throws: error) { try Timers.after(delay) }
  }

  @Test(arguments: [
    Duration.nanoseconds(-1), minusAttosecond, .nanoseconds(Int64.min), .zero - beyondInt64Seconds,
  ])
  func negativeLeewayThrowsInEveryForm(leeway: Duration) {
    #expect(throws: TimerError.negativeLeeway(leeway)) {
      try Timers.every(.seconds(1), leeway: leeway)
    }
    #expect(throws: TimerError.negativeLeeway(leeway)) {
      try Timers.every(seconds: 1, leeway: leeway)
    }
    #expect(throws: TimerError.negativeLeeway(leeway)) { try Timers.after(.zero, leeway: leeway) }
  }

  @Test func everyErrorQuotesTheValuePassed() {
    let seconds: [(Double, String)] = [
      (-1e10, "not -10000000000.0 seconds"),
      (-0.0, "not -0.0 seconds"),
      (4e-10, "not 4e-10 seconds"),
      (Double.leastNonzeroMagnitude, "not 5e-324 seconds"),
      (2e9.nextUp, "not 2000000000.0000002 seconds"),
      (1e10, "not 10000000000.0 seconds"),
      (1e300, "not 1e+300 seconds"),
      (.nan, "not nan"),
      (-.infinity, "not -inf"),
    ]
    for (value, quote) in seconds {
      #expect(describedError { _ = try Timers.every(seconds: value) }.hasSuffix(quote), "\(value)")
    }
    let durations: [(Duration, String)] = [
      (.zero, "not 0.0 seconds"),
      (.nanoseconds(Int64.min), "not -9223372036.854775808 seconds"),
      (attosecond, "not 0.000000000000000001 seconds"),
      (.nanoseconds(999_999), "not 0.000999999 seconds"),
      (Timers.maximumInterval + .nanoseconds(1), "not 2000000000.000000001 seconds"),
      (.seconds(Int64.max), "not 9223372036854775807.0 seconds"),
      // Past Int64 seconds, `Duration`'s own description: 2 × (2^63 - 1) seconds.
      (beyondInt64Seconds, "not 1.8446744073709552e+19 seconds"),
      (.zero - beyondInt64Seconds, "not -1.8446744073709552e+19 seconds"),
    ]
    for (value, quote) in durations {
      #expect(describedError { _ = try Timers.every(value) }.hasSuffix(quote), "\(value)")
    }
    #expect(
      describedError { _ = try Timers.after(minusAttosecond) }.hasSuffix(
        "not -0.000000000000000001 seconds"))
    #expect(
      describedError { _ = try Timers.every(.seconds(1), leeway: .milliseconds(-1)) }
        .hasSuffix("not -0.001 seconds"))
  }

  @Test func theLimitsThemselvesAreAcceptedInBothForms() async throws {
    // The longest interval is a real Dispatch deadline, not "never" (`distantFuture`).
    let now = DispatchTime.now()
    let deadline = now + .nanoseconds(2_000_000_000_000_000_000)
    #expect(deadline != .distantFuture)
    #expect(deadline.uptimeNanoseconds - now.uptimeNanoseconds == 2_000_000_000_000_000_000)
    let longest: [ValueObservable<Tick>] = [
      try Timers.every(Timers.maximumInterval),
      try Timers.every(seconds: 2e9),
      try Timers.after(Timers.maximumInterval),
    ]
    for stream in longest {
      stream.subscribe { _ in Issue.record("a longest timer ticked") }.unsubscribe()
    }
    // 999,999.5 ns rounds up to the minimum.
    for stream in [
      try Timers.every(Timers.minimumInterval), try Timers.every(seconds: 0.001),
      try Timers.every(seconds: 0.000_999_999_5),
    ] {
      let recorder = TickRecorder()
      let subscription = stream.subscribe(recorder.record)
      #expect(await recorder.waitForTicks(2))
      subscription.unsubscribe()
    }
  }

  @Test func aZeroOrSubNanosecondDelayFiresAtOnce() async throws {
    for delay in [Duration.zero, attosecond] {
      let recorder = TickRecorder()
      try Timers.after(delay).subscribe(recorder.record)
      #expect(await recorder.waitForTicks(1))
    }
  }

  @Test func theShortestRepeatingTimerIsNotABusyLoop() async throws {
    let recorder = TickRecorder()
    let clock = ContinuousClock()
    let start = clock.now
    let subscription = try Timers.every(Timers.minimumInterval).subscribe(recorder.record)
    try await Task.sleep(for: .milliseconds(200))
    subscription.unsubscribe()
    // At most one fire per millisecond of the time it really ran (a loaded machine, or a
    // sanitizer, can stretch the 200 ms wait), with room for a late start.
    let ranFor = (clock.now - start) / .milliseconds(1)
    let allowed = Int(ranFor * 1.25) + 50
    #expect(recorder.ticks.count <= allowed)
    #expect((recorder.ticks.last?.index ?? 0) <= allowed)
  }

  /// A leeway past `Timers.maximumInterval` is accepted, taken as the maximum, and traps
  /// nowhere. The repeating timer still ticks: Dispatch caps a repeating timer's leeway at half
  /// its interval. A one-shot timer's leeway is how long Dispatch may defer it ("the amount of
  /// time that the system can defer the timer"), so the test does not wait for a tick that may
  /// come 63 years late: it makes, subscribes and ends them. The wait for the repeating timer's
  /// ticks is bounded only so that a timer that never ticks fails the test (60 s).
  @Test func aHugeLeewayIsAcceptedAndTheTimerStillTicks() async throws {
    let repeating = TickRecorder()
    let subscription = try Timers.every(.milliseconds(5), leeway: .seconds(Int64.max))
      .subscribe(repeating.record)
    #expect(await repeating.waitForTicks(2, within: .seconds(60)))
    subscription.unsubscribe()
    for leeway in [Duration.seconds(Int64.max), beyondInt64Seconds] {
      let once = try Timers.after(.milliseconds(1), leeway: leeway).subscribe { _ in }
      once.unsubscribe()
    }
  }

  @Test func ticksAreDeliveredOnTheMainActorThatMadeTheStream() async throws {
    let recorder = TickRecorder()
    var onMainActor = 0
    let subscription = try Timers.every(.milliseconds(2)).subscribe { tick in
      MainActor.assertIsolated()  // the timer fires on a queue of its own; this runs here
      onMainActor += 1  // a main-actor variable, mutated with no lock
      recorder.record(tick)
    }
    #expect(await recorder.waitForTicks(2))
    subscription.unsubscribe()
    #expect(onMainActor == recorder.ticks.count)
  }

  @Test func ticksAreDeliveredOnACustomActorThatMadeTheStream() async throws {
    let counter = TickCounter()
    try await counter.start()
    let deadline = ContinuousClock.now + .seconds(10)
    while await counter.count < 3 && ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
    await counter.stop()
    #expect(await counter.count >= 3)
  }

  @Test func manySubscribeUnsubscribeCyclesReleaseEveryTimer() async throws {
    weak var lastHandlerWitness: AnyObject?
    let ticks = try Timers.every(.milliseconds(1))
    for _ in 0..<200 {
      final class Witness {}
      let witness = Witness()
      lastHandlerWitness = witness
      ticks.subscribe { _ in _ = witness }.unsubscribe()
    }
    // The cancel handler runs asynchronously on the timer's queue; give it time to release.
    #expect(await eventually { lastHandlerWitness == nil })
  }
}

extension TickRecorder {
  /// Whether a tick arrives within `milliseconds`; used to check that none does.
  fileprivate func waitForTicksWithin(milliseconds: Int) async -> Bool {
    await arrivedWithin(.milliseconds(milliseconds))
  }
}
