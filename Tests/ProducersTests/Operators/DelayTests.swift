import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

@MainActor
@Suite struct DelayTests {
  @Test func passesOnEveryValueIntervalAfterItArrivedInOrder() async throws {
    let clock = ManualClock()
    let source = Emitter<Mark>()
    var seen: [Int] = []
    let subscription = source.delay(for: .milliseconds(100), clock: clock)
      .subscribe {
        MainActor.assertIsolated()
        seen.append($0.id)
      }
    source.send(Mark(1))
    source.send(Mark(2))
    await clock.advance(by: .milliseconds(30))
    source.send(Mark(3))
    await clock.advance(by: .milliseconds(69))
    #expect(seen == [])
    await clock.advance(by: .milliseconds(1))
    #expect(seen == [1, 2])
    await clock.advance(by: .milliseconds(29))
    #expect(seen == [1, 2])
    await clock.advance(by: .milliseconds(1))
    #expect(seen == [1, 2, 3])
    subscription.unsubscribe()
  }

  @Test func keepsOrderAcrossManyValuesAndReusesItsTaskOnlyWhileValuesWait() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.delay(for: .milliseconds(10), clock: clock)
      .subscribe { seen.append($0) }
    for value in 0..<20 {
      source.send(value)
      await clock.advance(by: .milliseconds(3))
    }
    await clock.advance(by: .milliseconds(10))
    #expect(seen == Array(0..<20))
    #expect(clock.pendingCount == 0)
    source.send(20)
    await clock.advance(by: .milliseconds(10))
    #expect(seen == Array(0...20))
    subscription.unsubscribe()
  }

  @Test func aZeroDelayDeliversAfterTheSendReturns() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.delay(for: .zero, clock: clock).subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    #expect(seen == [])
    await clock.advance(by: .zero)
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }

  /// A value sent from inside the delivery of a zero-delayed one waits for a later turn of the
  /// actor, as the first one did, so a loop fed back through `delay(for: .zero)` lets the
  /// actor's other work run between its values. (Before, the delivery went on with the values
  /// that arrived during it, in the same turn: such a loop held the actor for good.)
  @Test func aValueSentDuringAZeroDelayedDeliveryWaitsForALaterTurn() async throws {
    let source = Emitter<Int>()
    var log: [String] = []
    let subscription = source.delay(for: .zero).subscribe { value in
      log.append("\(value)")
      guard value < 2 else { return }
      source.send(value + 1)
      Task { @MainActor in log.append("turn after \(value)") }
    }
    source.send(0)
    _ = await eventually { log.count >= 5 }
    #expect(log == ["0", "turn after 0", "1", "turn after 1", "2"])
    subscription.unsubscribe()
  }

  @Test func unsubscribingDropsTheWaitingValuesAndCancelsTheirWait() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.delay(for: .milliseconds(100), clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    #expect(clock.pendingCount == 1)
    subscription.unsubscribe()
    #expect(clock.pendingCount == 0)
    await clock.advance(by: .seconds(1))
    #expect(seen == [])
  }

  @Test func nothingIsDeliveredAfterUnsubscribeEvenFromTheSubscriberItself() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.delay(for: .milliseconds(100), clock: clock).subscribe {
      seen.append($0)
      subscription?.unsubscribe()
    }
    source.send(1)
    source.send(2)
    await clock.advance(by: .milliseconds(100))
    #expect(seen == [1])
  }

  @Test(arguments: [Duration.nanoseconds(-1), .seconds(-1)])
  func aNegativeDelayDeliversAsAZeroDelayDoes(interval: Duration) async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.delay(for: interval, clock: clock).subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    #expect(seen == [])
    await clock.advance(by: .zero)
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }

  @Test(arguments: [
    Timers.maximumInterval + .nanoseconds(1), .seconds(Int64.max) + .seconds(Int64.max),
  ])
  func aDelayBeyondTheMaximumIntervalWaitsTheMaximumInterval(interval: Duration) async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.delay(for: interval, clock: clock).subscribe { seen.append($0) }
    source.send(1)
    await clock.advance(by: Timers.maximumInterval - .nanoseconds(1))
    #expect(seen == [])
    await clock.advance(by: .nanoseconds(1))
    #expect(seen == [1])
    subscription.unsubscribe()
  }
}
