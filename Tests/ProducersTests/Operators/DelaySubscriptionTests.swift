import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// A stream that counts its connects and disconnects, and sends `onConnect` as it connects, then
/// what its emitter sends.
@MainActor
private final class CountedStream {
  let emitter = Emitter<Int>()
  var onConnect: [Int] = []
  private(set) var connects = 0
  private(set) var disconnects = 0

  var stream: ValueObservable<Int> {
    ValueObservable { observer in
      MainActor.assertIsolated()
      self.connects += 1
      for value in self.onConnect { observer.next(value) }
      let subscription = self.emitter.subscribe(observer.next)
      return {
        self.disconnects += 1
        subscription.unsubscribe()
      }
    }
  }
}

@MainActor
@Suite(.checksLiveResources) struct DelaySubscriptionTests {
  @Test func connectsAfterTheIntervalThenPassesValuesAsTheyArrive() async {
    let clock = ManualClock()
    let source = CountedStream()
    var seen: [Int] = []
    let subscription = source.stream.delaySubscription(for: .milliseconds(100), clock: clock)
      .subscribe { seen.append($0) }
    #expect(source.connects == 0)
    source.emitter.send(1)
    await clock.advance(by: .milliseconds(99))
    #expect(source.connects == 0)
    await clock.advance(by: .milliseconds(1))
    #expect(source.connects == 1)
    #expect(clock.pendingCount == 0)  // the alarm has been let go
    source.emitter.send(2)
    source.emitter.send(3)
    #expect(seen == [2, 3])
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(source.connects == 1 && source.disconnects == 1)
    source.emitter.send(4)
    #expect(seen == [2, 3])
  }

  @Test func unsubscribingBeforeTheWaitIsOverNeverConnects() async {
    let clock = ManualClock()
    let source = CountedStream()
    let subscription = source.stream.delaySubscription(for: .milliseconds(100), clock: clock)
      .subscribe { _ in }
    #expect(clock.pendingCount == 1)
    await clock.advance(by: .milliseconds(50))
    subscription.unsubscribe()
    #expect(clock.pendingCount == 0)
    await clock.advance(by: .seconds(1))
    #expect(source.connects == 0 && source.disconnects == 0)
  }

  @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(-1)])
  func aZeroOrNegativeIntervalConnectsOnTheNextTurnNotInsideSubscribe(interval: Duration) async {
    let clock = ManualClock()
    let source = CountedStream()
    source.onConnect = [1]
    var seen: [Int] = []
    let subscription = source.stream.delaySubscription(for: interval, clock: clock)
      .subscribe { seen.append($0) }
    #expect(source.connects == 0 && seen == [])
    await clock.advance(by: .zero)
    #expect(source.connects == 1 && seen == [1])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func eachSubscriptionWaitsAndConnectsOnItsOwn() async {
    let clock = ManualClock()
    let source = CountedStream()
    let delayed = source.stream.delaySubscription(for: .milliseconds(100), clock: clock)
    var seen: [String] = []
    let first = delayed.subscribe { seen.append("first \($0)") }
    await clock.advance(by: .milliseconds(60))
    let second = delayed.subscribe { seen.append("second \($0)") }
    await clock.advance(by: .milliseconds(40))
    source.emitter.send(1)
    await clock.advance(by: .milliseconds(60))
    source.emitter.send(2)
    #expect(seen == ["first 1", "first 2", "second 2"])
    #expect(source.connects == 2)
    first.unsubscribe()
    #expect(source.disconnects == 1)
    second.unsubscribe()
    #expect(source.disconnects == 2)
  }

  @Test func unsubscribingFromInsideADeliveryDisconnectsTheStream() async {
    let clock = ManualClock()
    let source = CountedStream()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.delaySubscription(for: .seconds(1), clock: clock).subscribe {
      seen.append($0)
      subscription?.unsubscribe()
    }
    await clock.advance(by: .seconds(1))
    source.emitter.send(1)
    source.emitter.send(2)
    #expect(seen == [1])
    #expect(source.connects == 1 && source.disconnects == 1)
    #expect(source.emitter.subscriberCount == 0)
  }

  /// A value the stream sends while it connects, from inside which the subscription ends: the
  /// values after it are not passed on, and the connection is ended as soon as it is made.
  @Test func unsubscribingFromInsideAValueSentWhileConnectingEndsTheConnectionAtOnce() async {
    let clock = ManualClock()
    let source = CountedStream()
    source.onConnect = [1, 2, 3]
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.delaySubscription(for: .seconds(1), clock: clock).subscribe {
      seen.append($0)
      subscription?.unsubscribe()
    }
    await clock.advance(by: .seconds(1))
    #expect(seen == [1])
    #expect(source.connects == 1 && source.disconnects == 1)
    #expect(source.emitter.subscriberCount == 0)
  }

  @Test(arguments: [
    Timers.maximumInterval + .nanoseconds(1), .seconds(Int64.max) + .seconds(Int64.max),
  ])
  func anIntervalBeyondTheMaximumWaitsTheMaximumInterval(interval: Duration) async {
    let clock = ManualClock()
    let source = CountedStream()
    let subscription = source.stream.delaySubscription(for: interval, clock: clock)
      .subscribe { _ in }
    await clock.advance(by: Timers.maximumInterval - .nanoseconds(1))
    #expect(source.connects == 0)
    await clock.advance(by: .nanoseconds(1))
    #expect(source.connects == 1)
    subscription.unsubscribe()
  }

  /// On the default clock, a Dispatch timer: the stream connects on the subscriber's actor.
  @Test func connectsOnTheStreamsActorOnTheContinuousClock() async {
    let source = CountedStream()
    var seen: [Int] = []
    let subscription = source.stream.delaySubscription(for: .milliseconds(5)).subscribe {
      MainActor.assertIsolated()
      seen.append($0)
    }
    #expect(source.connects == 0)
    #expect(await eventually { source.connects == 1 })
    source.emitter.send(1)
    #expect(seen == [1])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }
}
