import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// A value that is not `Sendable`: the time-based operators must not need it to be.
final class Mark {
  let id: Int
  init(_ id: Int) { self.id = id }
}

@MainActor
@Suite struct DebounceTests {
  @Test func passesOnTheLastValueOfABurstOnceDueTimeHasPassedWithoutANewerOne() async throws {
    let clock = ManualClock()
    let source = Emitter<Mark>()
    var seen: [Int] = []
    let subscription = source.debounce(for: .milliseconds(100), clock: clock)
      .subscribe {
        MainActor.assertIsolated()
        seen.append($0.id)
      }
    source.send(Mark(1))
    await clock.advance(by: .milliseconds(60))
    source.send(Mark(2))
    await clock.advance(by: .milliseconds(60))
    source.send(Mark(3))
    await clock.advance(by: .milliseconds(99))
    #expect(seen == [])
    await clock.advance(by: .milliseconds(1))
    #expect(seen == [3])
    await clock.advance(by: .seconds(10))
    #expect(seen == [3])
    subscription.unsubscribe()
  }

  @Test func eachBurstGivesItsLastValue() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.debounce(for: .milliseconds(100), clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    await clock.advance(by: .milliseconds(150))
    #expect(seen == [2])
    source.send(3)
    await clock.advance(by: .milliseconds(50))
    source.send(4)
    await clock.advance(by: .milliseconds(100))
    #expect(seen == [2, 4])
    subscription.unsubscribe()
  }

  @Test func unsubscribingDropsThePendingValueAndCancelsItsWait() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.debounce(for: .milliseconds(100), clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    #expect(clock.pendingCount == 1)
    subscription.unsubscribe()
    #expect(clock.pendingCount == 0)
    #expect(source.subscriberCount == 0)
    await clock.advance(by: .seconds(1))
    #expect(seen == [])
  }

  @Test func nothingIsDeliveredAfterUnsubscribeEvenWhenTheWaitHadEnded() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [String] = []
    var second: Subscription?
    let debounced = source.debounce(for: .milliseconds(100), clock: clock)
    let first = debounced.subscribe {
      seen.append("first \($0)")
      second?.unsubscribe()
    }
    second = debounced.subscribe { seen.append("second \($0)") }
    source.send(1)
    #expect(clock.pendingCount == 2)
    // Both waits end before either task runs, and either may run first: once the first
    // delivery has unsubscribed the second, the second gets nothing.
    await clock.advance(by: .milliseconds(100))
    #expect(seen.contains("first 1"))
    // The two alarms fire in the order they were armed, each on the main actor before
    // `advance` returns: the first delivery unsubscribes the second, which gets nothing.
    #expect(seen == ["first 1"])
    first.unsubscribe()
  }

  /// On a manual clock, a zero wait is due at the clock's present: the next advance, even by
  /// zero, delivers it.
  @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(-1)])
  func aDueTimeOfZeroOrLessDeliversTheLastValueOfASynchronousBurstAfterTheSendReturns(
    dueTime: Duration
  ) async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.debounce(for: dueTime, clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    #expect(seen == [])
    await clock.advance(by: .zero)
    #expect(seen == [2])
    source.send(3)
    await clock.advance(by: .zero)
    #expect(seen == [2, 3])
    subscription.unsubscribe()
  }

  @Test(arguments: [
    Timers.maximumInterval + .nanoseconds(1), .seconds(Int64.max) + .seconds(Int64.max),
  ])
  func aDueTimeBeyondTheMaximumIntervalWaitsTheMaximumInterval(dueTime: Duration) async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.debounce(for: dueTime, clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    await clock.advance(by: Timers.maximumInterval - .nanoseconds(1))
    #expect(seen == [])
    await clock.advance(by: .nanoseconds(1))
    #expect(seen == [1])
    subscription.unsubscribe()
  }
}
