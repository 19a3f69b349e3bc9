import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `Emitter(keepingLast: 0)`: an emitter that lets go of each value when its send returns.
@Suite(.checksLiveResources) struct EmitterKeepsNoLastValueTests {
  @Test func itDeliversLikeAnyEmitterButHasNoLastValue() {
    let emitter = Emitter<Int>(keepingLast: 0)
    var seen: [Int] = []
    emitter.subscribe { seen.append($0) }
    emitter.send(1)
    emitter.send(2)
    #expect(seen == [1, 2])
    #expect(emitter.lastValue == nil)
    #expect(emitter.sendCount == 2)
  }

  @Test func replayingLastReplaysNothing() {
    let emitter = Emitter<String>(keepingLast: 0)
    emitter.send("before")
    var seen: [String] = []
    emitter.subscribe(replayingLast: true) { seen.append($0) }
    #expect(seen.isEmpty)
    emitter.send("after")
    #expect(seen == ["after"])
  }

  @Test func theValueIsReleasedWhenTheSendReturns() {
    let emitter = Emitter<Witness>(keepingLast: 0)
    var received = 0
    emitter.subscribe { _ in received += 1 }
    weak var weakValue: Witness?
    do {
      let value = Witness()
      weakValue = value
      emitter.send(value)
    }
    #expect(received == 1)
    #expect(weakValue == nil)
  }

  @Test func theDefaultEmitterKeepsTheLastValueAlive() {
    // The contrast: what `keepingLast: 0` is for.
    let emitter = Emitter<Witness>()
    weak var weakValue: Witness?
    do {
      let value = Witness()
      weakValue = value
      emitter.send(value)
    }
    #expect(weakValue != nil)
    #expect(emitter.lastValue === weakValue)
  }
}

/// `Emitter(keepingLast: n)` and `SendableEmitter(keepingLast: n)`: RxSwift's `ReplaySubject`.
@Suite(.checksLiveResources) struct EmitterKeepingSeveralTests {
  @Test func aReplayDeliversTheKeptValuesOldestFirstThenNewOnes() {
    let log = Emitter<String>(keepingLast: 3)
    for line in ["a", "b", "c", "d"] { log.send(line) }
    var replayed: [String] = []
    let subscription = log.subscribe(replayingLast: true) { replayed.append($0) }
    #expect(replayed == ["b", "c", "d"])
    log.send("e")
    #expect(replayed == ["b", "c", "d", "e"])
    #expect(log.lastValue == "e")
    var again: [String] = []
    log.subscribe(replayingLast: true, limit: 2) { again.append($0) }
    #expect(again == ["c", "d"])
    var plain: [String] = []
    log.subscribe { plain.append($0) }
    #expect(plain == [])
    subscription.unsubscribe()
  }

  @Test func fewerValuesThanKeptReplayWhatThereIs() {
    let log = Emitter<Int>(keepingLast: 5)
    var replayed: [Int] = []
    log.subscribe(replayingLast: true) { replayed.append($0) }
    #expect(replayed == [])
    log.send(1)
    log.send(2)
    var late: [Int] = []
    log.subscribe(replayingLast: true) { late.append($0) }
    #expect(late == [1, 2])
  }

  @Test func aNegativeCountKeepsNothing() {
    let emitter = Emitter<Int>(keepingLast: -7)
    emitter.send(1)
    var seen: [Int] = []
    emitter.subscribe(replayingLast: true) { seen.append($0) }
    #expect(seen == [])
    #expect(emitter.lastValue == nil)
  }

  @Test func aValueThatFallsOutIsReleasedAndTheRestWhenTheEmitterGoes() {
    weak var first: Witness?
    weak var second: Witness?
    weak var third: Witness?
    do {
      let emitter = Emitter<Witness>(keepingLast: 2)
      do {
        let values = [Witness(), Witness(), Witness()]
        (first, second, third) = (values[0], values[1], values[2])
        for value in values { emitter.send(value) }
      }
      #expect(first == nil)
      #expect(second != nil)
      #expect(third != nil)
    }
    #expect(second == nil)
    #expect(third == nil)
  }

  @Test func aSubscriberThatUnsubscribesDuringItsReplayGetsNoMore() {
    let log = Emitter<Int>(keepingLast: 3)
    for value in 1...3 { log.send(value) }
    var seen: [Int] = []
    var subscription: Subscription?
    var ended = false
    subscription = log.subscribe(replayingLast: true) { value in
      seen.append(value)
      if value == 2 {
        ended = true
        subscription?.unsubscribe()
      }
    }
    // The replay ran before `subscription` was set: end it here, as the handler would have.
    if ended { subscription?.unsubscribe() }
    log.send(4)
    #expect(seen == [1, 2, 3] || seen == [1, 2])
    #expect(!seen.contains(4))
    #expect(log.subscriberCount == 0)
  }

  @Test func aQueueSubscriberReceivesTheReplayOnItsQueueInOrderWithinItsLimit() async {
    let log = SendableEmitter<Int>(keepingLast: 3)
    for value in 1...4 { log.send(value) }
    let queue = DispatchQueue(label: "replay")
    let seen = LockedState<[Int]>([])
    log.subscribe(on: queue, replayingLast: true, limit: 2) { value in
      seen.withLock { $0.append(value) }
    }
    log.send(5)
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(seen.withLock { $0 } == [2, 3])
    #expect(log.subscriberCount == 0)
    let all = LockedState<[Int]>([])
    let subscription = log.subscribe(on: queue, replayingLast: true) { value in
      all.withLock { $0.append(value) }
    }
    log.send(6)
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(all.withLock { $0 } == [3, 4, 5, 6])
    subscription.unsubscribe()
  }
}

/// `makeConnectable(through:)`: Combine's and RxSwift's `multicast(subject)`, RxSwift's
/// `replay(n)`.
@Suite(.checksLiveResources) struct MakeConnectableThroughTests {
  @Test func theSubscribersGetWhatTheCallersEmitterKeeps() {
    let source = CallbackSource<Int>()
    let subject = Emitter<Int>(keepingLast: 2)
    let connectable = source.stream.makeConnectable(through: subject)
    let connection = connectable.connect()
    source.emit(1)
    source.emit(2)
    source.emit(3)
    var late: [Int] = []
    let subscription = connectable.subscribe { late.append($0) }
    #expect(late == [2, 3])
    subject.send(9)  // the caller's emitter is the subscribers' source
    source.emit(4)
    #expect(late == [2, 3, 9, 4])
    connection.unsubscribe()
    #expect(source.disconnects == 1)
    source.emit(5)
    #expect(late == [2, 3, 9, 4])
    subscription.unsubscribe()
    #expect(subject.subscriberCount == 0)
  }

  @Test func withoutAnEmitterNothingIsReplayed() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.makeConnectable()
    let connection = connectable.connect()
    source.emit(1)
    var seen: [Int] = []
    let subscription = connectable.subscribe { seen.append($0) }
    source.emit(2)
    #expect(seen == [2])
    subscription.unsubscribe()
    connection.unsubscribe()
  }
}
