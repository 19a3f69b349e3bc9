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
  private var subscription: SendableSubscription?

  func start(clock: some Clock<Duration> = ContinuousClock()) {
    subscription = Timers.every(.milliseconds(2), clock: clock).subscribe { _ in
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
    let subscription = Timers.every(.milliseconds(5)).subscribe(recorder.record)
    #expect(await recorder.waitForTicks(3))
    subscription.unsubscribe()
    let ticks = recorder.ticks
    #expect(ticks.first?.index == ticks.first?.merged)
    #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.index == $0.index + $1.merged })
  }

  @Test func oneShotDelayTicksOnce() async throws {
    let recorder = TickRecorder()
    Timers.after(.milliseconds(5)).subscribe(recorder.record)
    #expect(await recorder.waitForTicks(1))
    #expect(await recorder.waitForTicksWithin(milliseconds: 100) == false)
    #expect(recorder.ticks == [Tick(index: 1)])
  }

  @Test func unsubscribeInTheSubscriberStopsTicksAtOnce() async throws {
    let recorder = TickRecorder()
    var subscription: SendableSubscription?
    subscription = Timers.every(.milliseconds(1)).subscribe { tick in
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
    let subscription = Timers.every(.milliseconds(1)).subscribe(recorder.record)
    usleep(30_000)  // the main actor is busy: fires wait for it
    subscription.unsubscribe()
    try await Task.sleep(for: .milliseconds(20))
    #expect(recorder.ticks.isEmpty)
  }

  @Test func eachSubscriptionOwnsItsTimer() async throws {
    let ticks = Timers.after(.milliseconds(1))
    let first = TickRecorder()
    let second = TickRecorder()
    ticks.subscribe(first.record)
    ticks.subscribe(second.record)
    #expect(await first.waitForTicks(1))
    #expect(await second.waitForTicks(1))
  }

  @Test func firesThatWaitedForABusyActorAreAllDeliveredInOrder() async throws {
    let recorder = TickRecorder()
    let subscription = Timers.every(.milliseconds(2)).subscribe(recorder.record)
    // Keep the main actor busy for well over one interval, then let the ticks through.
    usleep(60_000)
    #expect(await recorder.waitForTicks(10))
    subscription.unsubscribe()
    let ticks = recorder.ticks
    // No fire is lost: each index counts the fires before it, merged or not.
    #expect(ticks.first?.index == ticks.first?.merged)
    #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.index == $0.index + $1.merged })
  }

  /// Every interval is taken, and clamped: below the minimum (zero, negative, a unit mistake)
  /// it ticks every millisecond; past the maximum, every `Timers.maximumInterval`.
  @Test(arguments: [
    (Duration.zero, Timers.minimumInterval),
    (.milliseconds(-1), Timers.minimumInterval),
    (.nanoseconds(Int64.min), Timers.minimumInterval),
    (.zero - beyondInt64Seconds, Timers.minimumInterval),
    (attosecond, Timers.minimumInterval),
    (.nanoseconds(999_999), Timers.minimumInterval),
    (.milliseconds(7), .milliseconds(7)),
    (Timers.maximumInterval + .nanoseconds(1), Timers.maximumInterval),
    (.seconds(Int64.max), Timers.maximumInterval),
    (beyondInt64Seconds, Timers.maximumInterval),
  ])
  func anIntervalOutsideTheLimitsIsClampedToThem(interval: Duration, ticksEvery: Duration) async {
    let clock = ManualClock()
    let recorder = TickRecorder()
    let subscription = Timers.every(interval, clock: clock).subscribe(recorder.record)
    await clock.advance(by: ticksEvery - .nanoseconds(1))
    #expect(recorder.ticks.isEmpty)
    await clock.advance(by: .nanoseconds(1))
    #expect(recorder.ticks.map(\.index) == [1])
    await clock.advance(by: ticksEvery * 2)
    #expect(recorder.ticks.map(\.index) == [1, 2, 3])
    subscription.unsubscribe()
  }

  /// A delay of zero or less fires at once; one past the maximum waits the maximum.
  @Test(arguments: [
    (minusAttosecond, Duration.zero),
    (.seconds(-1), .zero),
    (.nanoseconds(Int64.min), .zero),
    (.zero - beyondInt64Seconds, .zero),
    (.milliseconds(3), .milliseconds(3)),
    (Timers.maximumInterval + .nanoseconds(1), Timers.maximumInterval),
    (beyondInt64Seconds, Timers.maximumInterval),
  ])
  func aDelayOutsideTheLimitsIsClampedToThem(delay: Duration, firesAfter: Duration) async {
    let clock = ManualClock()
    let recorder = TickRecorder()
    let subscription = Timers.after(delay, clock: clock).subscribe(recorder.record)
    if firesAfter > .zero {
      await clock.advance(by: firesAfter - .nanoseconds(1))
      #expect(recorder.ticks.isEmpty)
    }
    await clock.advance(by: firesAfter > .zero ? .nanoseconds(1) : .zero)
    #expect(recorder.ticks.map(\.index) == [1])
    await clock.advance(by: Timers.maximumInterval)
    #expect(recorder.ticks.count == 1)
    #expect(clock.pendingCount == 0, "a one-shot timer lets its alarm go once it fired")
    subscription.unsubscribe()
  }

  @Test(arguments: [
    (0.0, Timers.minimumInterval), (-0.0, Timers.minimumInterval), (-1e10, Timers.minimumInterval),
    (4e-10, Timers.minimumInterval), (0.25, .milliseconds(250)), (1e300, Timers.maximumInterval),
  ])
  func finiteSecondsAreClampedAsDurationsAre(seconds: Double, ticksEvery: Duration) async throws {
    let clock = ManualClock()
    let recorder = TickRecorder()
    let subscription = try Timers.every(seconds: seconds, clock: clock).subscribe(recorder.record)
    await clock.advance(by: ticksEvery - .nanoseconds(1))
    #expect(recorder.ticks.isEmpty)
    await clock.advance(by: .nanoseconds(1))
    #expect(recorder.ticks.count == 1)
    subscription.unsubscribe()
  }

  @Test(arguments: [Double.infinity, -.infinity])
  func secondsThatAreNoTimeThrowNotFinite(seconds: Double) {
    #expect(throws: TimerError.notFinite(seconds)) { try Timers.every(seconds: seconds) }
  }

  @Test func notANumberOfSecondsThrowsNotFiniteQuotingIt() {
    #expect {
      try Timers.every(seconds: .nan)
    } throws: { error in
      guard case .notFinite(let seconds) = error as? TimerError else { return false }
      return seconds.isNaN && "\(error)".hasSuffix("not nan")
    }
  }

  @Test func aNegativeLeewayIsZero() async {
    for leeway in [Duration.nanoseconds(-1), minusAttosecond, .zero - beyondInt64Seconds] {
      let recorder = TickRecorder()
      let subscription = Timers.every(.milliseconds(2), leeway: leeway).subscribe(recorder.record)
      #expect(await recorder.waitForTicks(2))
      subscription.unsubscribe()
    }
  }

  /// A timer on the manual clock ticks as the test advances it, on the subscriber's actor,
  /// before `advance` returns: no real-time wait.
  @Test func aTimerOnTheManualClockTicksBeforeAdvanceReturns() async {
    let clock = ManualClock()
    var ticks: [Tick] = []
    let subscription = Timers.every(.seconds(1), clock: clock).subscribe { tick in
      MainActor.assertIsolated()
      ticks.append(tick)
    }
    await clock.advance(by: .milliseconds(999))
    #expect(ticks.isEmpty)
    await clock.advance(by: .milliseconds(1))
    #expect(ticks.map(\.index) == [1])
    await clock.advance(by: .seconds(3))
    #expect(ticks.map(\.index) == [1, 2, 3, 4])
    #expect(clock.now == ManualClock.Instant(offset: .seconds(4)))
    subscription.unsubscribe()
    #expect(clock.pendingCount == 0)
    await clock.advance(by: .seconds(5))
    #expect(ticks.count == 4)
  }

  /// The same, for a subscriber on an actor other than the one that advances the clock.
  @Test func aTimerOnAnotherActorTicksBeforeAdvanceReturns() async {
    let clock = ManualClock()
    let counter = TickCounter()
    await counter.start(clock: clock)
    await clock.advance(by: .milliseconds(10))
    #expect(await counter.count == 5)
    await counter.stop()
  }

  @Test func theLimitsThemselvesAreAcceptedInBothForms() async throws {
    // The longest interval is a real Dispatch deadline, not "never" (`distantFuture`).
    let now = DispatchTime.now()
    let deadline = now + .nanoseconds(2_000_000_000_000_000_000)
    #expect(deadline != .distantFuture)
    #expect(deadline.uptimeNanoseconds - now.uptimeNanoseconds == 2_000_000_000_000_000_000)
    let longest: [Producer<Tick>] = [
      Timers.every(Timers.maximumInterval),
      try Timers.every(seconds: 2e9),
      Timers.after(Timers.maximumInterval),
    ]
    for stream in longest {
      stream.subscribe { _ in Issue.record("a longest timer ticked") }.unsubscribe()
    }
    // 999,999.5 ns rounds up to the minimum.
    for stream in [
      Timers.every(Timers.minimumInterval), try Timers.every(seconds: 0.001),
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
      Timers.after(delay).subscribe(recorder.record)
      #expect(await recorder.waitForTicks(1))
    }
  }

  @Test func theShortestRepeatingTimerIsNotABusyLoop() async throws {
    let recorder = TickRecorder()
    let clock = ContinuousClock()
    let start = clock.now
    let subscription = Timers.every(Timers.minimumInterval).subscribe(recorder.record)
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
    let subscription = Timers.every(.milliseconds(5), leeway: .seconds(Int64.max))
      .subscribe(repeating.record)
    #expect(await repeating.waitForTicks(2, within: .seconds(60)))
    subscription.unsubscribe()
    for leeway in [Duration.seconds(Int64.max), beyondInt64Seconds] {
      let once = Timers.after(.milliseconds(1), leeway: leeway).subscribe { _ in }
      once.unsubscribe()
    }
  }

  @Test func ticksAreDeliveredOnTheMainActorThatMadeTheStream() async throws {
    let recorder = TickRecorder()
    var onMainActor = 0
    let subscription = Timers.every(.milliseconds(2)).subscribe { tick in
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
    await counter.start()
    _ = await eventually { await counter.count >= 3 }
    await counter.stop()
    #expect(await counter.count >= 3)
  }

  @Test func manySubscribeUnsubscribeCyclesReleaseEveryTimer() async throws {
    weak var lastHandlerWitness: AnyObject?
    let ticks = Timers.every(.milliseconds(1))
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
