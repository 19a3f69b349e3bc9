import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// `Timers.every(...)` and `after(...)` with `.sendingThread`: the tick runs where the clock's
/// alarm fires (a `ManualClock`'s advance, a Dispatch timer's queue).
@Suite(.checksLiveResources) struct TimersSendingThreadTests {
  /// On a manual clock the alarm fires in `advance`: the ticks run where the clock is advanced
  /// (the main actor here, the test's), all of them before `advance` returns.
  @MainActor @Test func ticksRunInTheAdvanceThatPassesThem() async {
    let clock = ManualClock()
    let ticks = Recorder<Tick>()
    let onMainActor = Recorder<Bool>()
    let subscription = Timers.every(.seconds(1), clock: clock).subscribe(on: .sendingThread) {
      tick in
      onMainActor.record(MainQueue.isCurrent)
      ticks.record(tick)
    }
    await clock.advance(by: .milliseconds(999))
    #expect(ticks.values.isEmpty)
    await clock.advance(by: .milliseconds(2_001))
    #expect(ticks.values.map(\.index) == [1, 2, 3])
    #expect(onMainActor.values == [true, true, true])
    subscription.unsubscribe()
    await clock.advance(by: .seconds(5))
    #expect(ticks.count == 3)
    #expect(clock.pendingCount == 0)
  }

  /// From an advance on another actor, the tick runs there, not on the main thread.
  @Test func ticksRunOnTheActorThatAdvancesTheClock() async {
    let clock = ManualClock()
    let onMainActor = Recorder<Bool>()
    let subscription = Timers.after(.seconds(2), clock: clock).subscribe(on: .sendingThread) { _ in
      onMainActor.record(MainQueue.isCurrent)
    }
    let advancer = Advancer()
    await advancer.advance(clock, by: .seconds(1))
    #expect(onMainActor.values.isEmpty)
    await advancer.advance(clock, by: .seconds(1))
    #expect(onMainActor.values == [false])
    await advancer.advance(clock, by: .seconds(10))
    #expect(onMainActor.values == [false], "a one-shot ticks once")
    #expect(clock.pendingCount == 0)
    subscription.unsubscribe()
  }

  @Test func aSubscriberMayUnsubscribeItselfAndNothingIsDeliveredAfter() async {
    let clock = ManualClock()
    let ticks = Recorder<Int>()
    let own = LockedState<SendableSubscription?>(nil)
    let subscription = Timers.every(.seconds(1), clock: clock).subscribe(on: .sendingThread) {
      tick in
      ticks.record(tick.index)
      if tick.index == 2 { own.withLock { $0 }?.unsubscribe() }
    }
    own.withLock { $0 = subscription }
    await clock.advance(by: .seconds(5))
    #expect(ticks.values == [1, 2])
    #expect(subscription.isUnsubscribed)
    #expect(clock.pendingCount == 0, "the alarm was taken off the clock")
  }

  /// On `ContinuousClock`, the tick runs on the timer's queue: the main actor is held until it
  /// arrives, so a tick that hopped to it could not.
  @MainActor @Test func aDispatchTimersTickRunsOnItsQueueWhileTheMainActorIsBlocked() {
    let onMainActor = Recorder<Bool>()
    let subscription = Timers.after(.milliseconds(1)).subscribe(on: .sendingThread) { _ in
      onMainActor.record(MainQueue.isCurrent)
    }
    #expect(onMainActor.wait(forCount: 1, seconds: 60))
    #expect(onMainActor.values == [false])
    subscription.unsubscribe()
  }

  @Test func aRepeatingDispatchTimerStopsWhenItsSubscriberUnsubscribesItself() async throws {
    let ticks = Recorder<Tick>()
    let own = LockedState<SendableSubscription?>(nil)
    // How many ticks had come when the subscriber's unsubscribe returned.
    let heardWhenUnsubscribed = Recorder<Int>()
    let subscription = Timers.every(.milliseconds(1)).subscribe(on: .sendingThread) { tick in
      ticks.record(tick)
      // A tick may come before `own` is set; the next one unsubscribes.
      guard let subscription = own.withLock({ $0 }) else { return }
      subscription.unsubscribe()
      heardWhenUnsubscribed.record(ticks.count)
    }
    own.withLock { $0 = subscription }
    #expect(await heardWhenUnsubscribed.arrival(ofCount: 1))
    try await Task.sleep(for: .milliseconds(20))
    #expect([ticks.count] == heardWhenUnsubscribed.values, "no tick after the unsubscribe")
    // Fires that Dispatch merged while the queue was late count in the index.
    #expect(
      ticks.values.map(\.index)
        == ticks.values.reduce(into: []) { $0.append(($0.last ?? 0) + $1.merged) })
  }

  @Test func aNumberOfSecondsThatIsNoTimeIsRefused() {
    #expect(throws: TimerError.notFinite(.infinity)) {
      try Timers.every(seconds: .infinity).subscribe(on: .sendingThread) { _ in }
    }
    let clock = ManualClock()
    #expect(throws: Never.self) {
      let subscription = try Timers.every(seconds: 0.5, clock: clock).subscribe(on: .sendingThread)
      { _ in }
      subscription.unsubscribe()
    }
  }
}

/// An actor that advances a manual clock, so that the ticks run on it.
private actor Advancer {
  func advance(_ clock: ManualClock, by duration: Duration) async {
    await clock.advance(by: duration)
  }
}
