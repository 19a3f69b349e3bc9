import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

@MainActor
@Suite struct ThrottleTests {
  /// Sends 1 at 0 ms, 2 at 10 ms, 3 at 20 ms and 4 at 150 ms into a stream throttled to 100 ms,
  /// and returns what was delivered at 0, 99, 100, 150, 199 and 200 ms.
  private func deliveries(latest: Bool) async throws -> [[Int]] {
    let clock = ManualClock()
    let source = Emitter<Mark>()
    var seen: [Int] = []
    var snapshots: [[Int]] = []
    let subscription = source.throttle(for: .milliseconds(100), clock: clock, latest: latest)
      .subscribe {
        MainActor.assertIsolated()
        seen.append($0.id)
      }
    source.send(Mark(1))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(10))
    source.send(Mark(2))
    await clock.advance(by: .milliseconds(10))
    source.send(Mark(3))
    await clock.advance(by: .milliseconds(79))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(1))
    // The held value's delivery is waited for; which value it was is the caller's check.
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(50))
    source.send(Mark(4))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(49))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(1))
    snapshots.append(seen)
    subscription.unsubscribe()
    return snapshots
  }

  @Test func latestPassesTheFirstValueAtOnceThenTheLatestOfEachWindowAtItsEnd() async throws {
    #expect(
      try await deliveries(latest: true) == [[1], [1], [1, 3], [1, 3], [1, 3], [1, 3, 4]])
  }

  @Test func firstPassesTheFirstValueAtOnceThenTheFirstOfEachWindowAtItsEnd() async throws {
    #expect(
      try await deliveries(latest: false) == [[1], [1], [1, 2], [1, 2], [1, 2], [1, 2, 4]])
  }

  @Test func aValueAfterAQuietWindowPassesAtOnce() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttle(for: .milliseconds(100), clock: clock, latest: true)
      .subscribe { seen.append($0) }
    source.send(1)
    await clock.advance(by: .milliseconds(100))
    source.send(2)
    #expect(seen == [1, 2])
    #expect(clock.pendingCount == 0)
    subscription.unsubscribe()
  }

  @Test func unsubscribingDropsTheHeldValueAndCancelsItsWait() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttle(for: .milliseconds(100), clock: clock, latest: true)
      .subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    #expect(clock.pendingCount == 1)
    subscription.unsubscribe()
    #expect(clock.pendingCount == 0)
    await clock.advance(by: .seconds(1))
    #expect(seen == [1])
  }

  @Test func nothingIsDeliveredAfterUnsubscribeEvenWhenTheWaitHadEnded() async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [String] = []
    var second: Subscription?
    let throttled = source.throttle(for: .milliseconds(100), clock: clock, latest: true)
    let first = throttled.subscribe {
      seen.append("first \($0)")
      if $0 == 2 { second?.unsubscribe() }
    }
    second = throttled.subscribe { seen.append("second \($0)") }
    source.send(1)
    source.send(2)
    #expect(clock.pendingCount == 2)
    await clock.advance(by: .milliseconds(100))
    // The two windows end together; the alarms fire in the order they were armed, each on the
    // main actor before `advance` returns: the first delivery ends the second subscription.
    #expect(seen == ["first 1", "second 1", "first 2"])
    first.unsubscribe()
  }

  @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(-1)])
  func anIntervalOfZeroOrLessPassesEveryValueAtOnce(interval: Duration) async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttle(for: interval, clock: clock, latest: false)
      .subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    source.send(3)
    #expect(seen == [1, 2, 3])
    #expect(clock.pendingCount == 0)
    subscription.unsubscribe()
  }

  @Test(arguments: [
    Timers.maximumInterval + .nanoseconds(1), .seconds(Int64.max) + .seconds(Int64.max),
  ])
  func anIntervalBeyondTheMaximumIntervalHoldsForTheMaximumInterval(
    interval: Duration
  ) async throws {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttle(for: interval, clock: clock, latest: true)
      .subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    #expect(seen == [1])
    await clock.advance(by: Timers.maximumInterval - .nanoseconds(1))
    #expect(seen == [1])
    await clock.advance(by: .nanoseconds(1))
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }
}
