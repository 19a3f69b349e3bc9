import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct ShareTests {
  @Test func connectsOnceForAllSubscribers() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share()
    var seen: [String] = []
    let subscriptions = ["a", "b", "c"].map { name in
      shared.subscribe { seen.append("\(name)\($0)") }
    }
    #expect(source.connects == 1)
    #expect(source.observerCount == 1)
    source.emit(1)
    #expect(seen == ["a1", "b1", "c1"])
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func disconnectsWhenTheLastSubscriberLeaves() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share()
    let first = shared.subscribe { _ in }
    let second = shared.subscribe { _ in }
    first.unsubscribe()
    #expect(source.disconnects == 0)
    second.unsubscribe()
    #expect(source.disconnects == 1)
    #expect(source.observerCount == 0)
  }

  @Test func theNextSubscriberConnectsAgainAndTheUpstreamStartsAfresh() {
    let source = CallbackSource<Int>()
    let totals = source.stream.scan(0, +).share()
    var seen: [Int] = []
    let first = totals.subscribe { seen.append($0) }
    source.emit(1)
    source.emit(2)
    first.unsubscribe()
    let second = totals.subscribe { seen.append($0) }
    source.emit(5)
    #expect(seen == [1, 3, 5])
    #expect(source.connects == 2)
    #expect(source.observerCount == 1)
    second.unsubscribe()
  }

  @Test func theFirstSubscriberReceivesWhatTheStreamSendsWhileConnecting() {
    let source = SynchronousSource([1, 2])
    let shared = source.stream.share()
    var first: [Int] = []
    var second: [Int] = []
    let early = shared.subscribe { first.append($0) }
    let late = shared.subscribe { second.append($0) }
    #expect(first == [1, 2])
    #expect(second == [])
    #expect(source.connects == 1)
    early.unsubscribe()
    late.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func aLaterSubscriberReceivesOnlyLaterValues() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share()
    var first: [Int] = []
    var second: [Int] = []
    let early = shared.subscribe { first.append($0) }
    source.emit(1)
    let late = shared.subscribe { second.append($0) }
    source.emit(2)
    #expect(first == [1, 2])
    #expect(second == [2])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test func aSubscriberThatUnsubscribesDuringADeliveryReceivesNothingMore() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = shared.subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    source.emit(1)
    source.emit(2)
    #expect(seen == [1])
    #expect(source.disconnects == 1)
  }

  @Test func aSubscriberMaySubscribeAnotherDuringADelivery() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share()
    var seen: [String] = []
    var inner: Subscription?
    let outer = shared.subscribe { value in
      seen.append("outer \(value)")
      if inner == nil { inner = shared.subscribe { seen.append("inner \($0)") } }
    }
    source.emit(1)
    source.emit(2)
    #expect(seen == ["outer 1", "outer 2", "inner 2"])
    #expect(source.connects == 1)
    outer.unsubscribe()
    inner?.unsubscribe()
    #expect(source.observerCount == 0)
  }

  /// The upstream's connect subscribes to the shared stream, and its disconnect subscribes to it
  /// again, which connects anew: the share's lock must be held around neither, or this
  /// deadlocks.
  @Test(.timeLimit(.minutes(1))) func theUpstreamsConnectAndDisconnectRunOutsideTheLock() {
    var shared: ValueObservable<Int>?
    var connects = 0
    var nested: Subscription?
    var reconnected: Subscription?
    var seen: [String] = []
    let upstream = ValueObservable<Int> { observer in
      connects += 1
      if connects == 1 { nested = shared?.subscribe { seen.append("nested \($0)") } }
      observer.next(connects)
      return {
        if reconnected == nil {
          reconnected = shared?.subscribe { seen.append("reconnected \($0)") }
        }
      }
    }
    shared = upstream.share()
    let first = shared?.subscribe { seen.append("first \($0)") }
    #expect(seen == ["first 1", "nested 1"])
    first?.unsubscribe()
    nested?.unsubscribe()
    #expect(connects == 2)
    #expect(seen == ["first 1", "nested 1", "reconnected 2"])
    reconnected?.unsubscribe()
    shared = nil  // The upstream's closures hold `shared`, which holds the upstream.
  }

  @Test func eachCallMakesASharedStreamOfItsOwn() {
    let source = CallbackSource<Int>()
    let first = source.stream.share().subscribe { _ in }
    let second = source.stream.share().subscribe { _ in }
    #expect(source.connects == 2)
    first.unsubscribe()
    second.unsubscribe()
  }

  @Test func valuesAreReleasedWhenTheLastSubscriberLeaves() {
    let source = CallbackSource<Witness>()
    let shared = source.stream.share()
    weak var sent: Witness?
    let subscription = shared.subscribe { _ in }
    do {
      let witness = Witness()
      sent = witness
      source.emit(witness)
    }
    subscription.unsubscribe()
    #expect(sent == nil)
  }

  /// Subscribers come and go on several threads while one stays: the upstream is connected
  /// once, and a value sent after a subscription returned reaches it.
  @Test func subscribersComingAndGoingOnSeveralThreadsShareOneConnection() {
    let source = ThreadSafeSource<Int>()
    let shared = Unchecked(source.stream.share())
    let tickets = Counter()
    let permanent = Recorder<Int>()
    let stays = shared.value.subscribe { permanent.append($0) }
    let missed = Counter()
    runOnThreads(4) { _ in
      for _ in 0..<200 {
        let received = Recorder<Int>()
        let subscription = shared.value.subscribe { received.append($0) }
        let own = tickets.increment()
        source.emit(own)
        if !received.values.contains(own) { missed.increment() }
        subscription.unsubscribe()
      }
    }
    #expect(missed.value == 0)
    #expect(source.connects == 1)
    #expect(permanent.count == 800)
    stays.unsubscribe()
    #expect(source.disconnects == 1)
    #expect(source.observerCount == 0)
  }

  /// Every subscriber may be the first or the last: threads subscribe and unsubscribe while one
  /// sends increasing values. Every connection ends, and no subscriber sees a value twice or out
  /// of order.
  @Test func connectionsComingAndGoingOnSeveralThreadsAllEnd() {
    let source = ThreadSafeSource<Int>()
    let shared = Unchecked(source.stream.share())
    let disorders = Counter()
    runOnThreads(5) { thread in
      if thread == 0 {
        for value in 0..<5_000 { source.emit(value) }
        return
      }
      for _ in 0..<300 {
        let received = Recorder<Int>()
        let subscription = shared.value.subscribe { received.append($0) }
        subscription.unsubscribe()
        let values = received.values
        if zip(values, values.dropFirst()).contains(where: { $0 >= $1 }) { disorders.increment() }
      }
    }
    #expect(disorders.value == 0)
    #expect(source.connects >= 1)
    #expect(source.connects == source.disconnects)
    #expect(source.observerCount == 0)
  }
}

/// Lets a test hand a shared stream to several threads: `share()` is what is under test, and it
/// is documented as safe to subscribe to from any thread; `ValueObservable` is not `Sendable`
/// because most streams are not.
private struct Unchecked<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

@Suite(.checksLiveResources) struct ShareReplayingLastTests {
  @Test func aLateSubscriberGetsTheConnectionsLastValueFirst() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share(replayingLast: 1)
    var early: [Int] = []
    var late: [Int] = []
    let first = shared.subscribe { early.append($0) }
    source.emit(1)
    source.emit(2)
    let second = shared.subscribe { late.append($0) }
    source.emit(3)
    #expect(early == [1, 2, 3])
    #expect(late == [2, 3])
    first.unsubscribe()
    second.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func aNewConnectionHasNothingToReplay() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share(replayingLast: 1)
    shared.subscribe { _ in }.unsubscribe()
    let first = shared.subscribe { _ in }
    source.emit(1)
    first.unsubscribe()  // the connection ends, and its last value with it
    var seen: [Int] = []
    let again = shared.subscribe { seen.append($0) }
    #expect(seen == [])
    source.emit(2)
    #expect(seen == [2])
    again.unsubscribe()
  }

  @Test func aLateSubscriberEndedAfterItsReplayGetsNothingMore() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share(replayingLast: 1)
    let keeper = shared.subscribe { _ in }
    source.emit(7)
    var seen: [Int] = []
    var late: Subscription?
    late = shared.subscribe { value in
      seen.append(value)
      late?.unsubscribe()
    }
    late?.unsubscribe()  // the replay ran before `late` was set: end it here
    source.emit(8)
    #expect(seen == [7])
    keeper.unsubscribe()
    #expect(source.disconnects == 1)
  }
}

@Suite(.checksLiveResources) struct ShareReplayingSeveralTests {
  @Test func aLateSubscriberGetsTheConnectionsLastValuesOldestFirst() {
    let source = CallbackSource<Int>()
    let shared = source.stream.share(replayingLast: 3)
    var early: [Int] = []
    let first = shared.subscribe { early.append($0) }
    for value in 1...5 { source.emit(value) }
    var late: [Int] = []
    var late2: Subscription?
    let second = shared.subscribe { value in
      late.append(value)
      if value == 6 { late2?.unsubscribe() }
    }
    late2 = second
    source.emit(6)
    source.emit(7)
    #expect(early == [1, 2, 3, 4, 5, 6, 7])
    #expect(late == [3, 4, 5, 6])
    second.unsubscribe()
    first.unsubscribe()
    #expect(source.disconnects == 1)
    var fresh: [Int] = []
    let third = shared.subscribe { fresh.append($0) }
    #expect(fresh == [])  // a new connection starts with nothing to replay
    third.unsubscribe()
  }
}
