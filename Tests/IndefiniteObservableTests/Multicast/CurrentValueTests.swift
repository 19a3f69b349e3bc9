import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct CurrentValueTests {
  @Test func subscribeReceivesTheCurrentValueThenEveryChange() {
    let volume = CurrentValue(5)
    var heard: [Int] = []
    volume.subscribe { heard.append($0) }
    #expect(heard == [5])
    volume.value = 6
    volume.value = 6
    #expect(heard == [5, 6, 6])
  }

  @Test func valueReadsTheLastWrite() {
    let name = CurrentValue("a")
    #expect(name.value == "a")
    name.value = "b"
    #expect(name.value == "b")
  }

  @Test func skipsEqualWritesWhenAsked() {
    let volume = CurrentValue(5, skipsEqualWrites: true)
    var heard: [Int] = []
    volume.subscribe { heard.append($0) }
    volume.value = 5
    volume.value = 6
    volume.value = 6
    volume.update { $0 += 0 }
    #expect(heard == [5, 6])
    #expect(volume.sendCount == 1)
  }

  @Test func deliversEqualWritesWhenNotAskedToSkipThem() {
    let volume = CurrentValue(5, skipsEqualWrites: false)
    var heard: [Int] = []
    volume.subscribe { heard.append($0) }
    volume.value = 5
    #expect(heard == [5, 5])
  }

  @Test func updateChangesTheValueInPlace() {
    let list = CurrentValue([1])
    var heard: [[Int]] = []
    list.subscribe { heard.append($0) }
    list.update { $0.append(2) }
    #expect(list.value == [1, 2])
    #expect(heard == [[1], [1, 2]])
  }

  @Test func ownerBoundSubscriptionBindsAValueToAnObject() {
    let title = CurrentValue(1)
    let witness = Witness()
    title.subscribe(witness) { witness, value in witness.received.append(value) }
    title.value = 2
    #expect(witness.received == [1, 2])
  }

  @Test func twoHoldersBoundToEachOtherSettle() {
    let left = CurrentValue(0, skipsEqualWrites: true)
    let right = CurrentValue(0, skipsEqualWrites: true)
    left.subscribe(right) { right, value in right.value = value }
    right.subscribe(left) { left, value in left.value = value }
    left.value = 1
    #expect(right.value == 1)
    right.value = 2
    #expect(left.value == 2)
    #expect(left.sendCount == 2)
    #expect(right.sendCount == 2)
  }

  @Test func queueSubscriberReceivesTheCurrentValueFirstOnItsQueue() {
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "delivery")
    queue.setSpecific(key: key, value: "delivery")
    let volume = CurrentValue(1)
    let heard = Recorder<Int>()
    let heardOn = Recorder<String?>()
    let subscription = volume.subscribe(on: queue) { value in
      heardOn.append(DispatchQueue.getSpecific(key: key))
      heard.append(value)
    }
    volume.value = 2
    queue.sync {}
    subscription.unsubscribe()
    volume.value = 3
    queue.sync {}
    #expect(heard.values == [1, 2])
    #expect(Set(heardOn.values) == ["delivery"])
  }

  @Test func ownerBoundQueueSubscriberReceivesTheOwner() {
    let queue = DispatchQueue(label: "delivery")
    let volume = CurrentValue(1)
    let witness = Recorder<Int>()
    volume.subscribe(witness, on: queue) { witness, value in witness.record(value) }
    volume.value = 2
    queue.sync {}
    #expect(witness.values == [1, 2])
  }

  @Test func operatorsComposeWithACurrentValue() {
    let celsius = CurrentValue(20.0)
    var fahrenheit: [Double] = []
    celsius.map { $0 * 9 / 5 + 32 }.subscribe { fahrenheit.append($0) }
    celsius.value = 100
    #expect(fahrenheit == [68, 212])
  }

  @Test func countersCountSubscribersAndDeliveredWrites() {
    let volume = CurrentValue(0)
    let subscription = volume.subscribe { _ in }
    #expect(volume.subscriberCount == 1)
    volume.value = 1
    volume.value = 2
    #expect(volume.sendCount == 2)
    volume.resetSendCount()
    #expect(volume.sendCount == 0)
    subscription.unsubscribe()
    #expect(volume.subscriberCount == 0)
    #expect(volume.maxSubscribers == 100)
  }

  @Test func writingFromASubscriberIsDeliveredAtOnce() {
    let value = CurrentValue(0)
    var heard: [Int] = []
    let writer = value.subscribe { if $0 == 1 { value.value = 2 } }
    value.subscribe { heard.append($0) }
    value.value = 1
    #expect(heard == [0, 2, 1])
    #expect(value.value == 2)
    writer.unsubscribe()  // The writer captures the holder: a cycle until it ends.
  }

  // MARK: Concurrency and memory

  @Test func boundHoldersDoNotKeepEachOtherAlive() {
    weak var weakLeft: CurrentValue<Int>?
    weak var weakRight: CurrentValue<Int>?
    do {
      let left = CurrentValue(0, skipsEqualWrites: true)
      let right = CurrentValue(0, skipsEqualWrites: true)
      weakLeft = left
      weakRight = right
      left.subscribe(right) { right, value in right.value = value }
      right.subscribe(left) { left, value in left.value = value }
      left.value = 1
    }
    #expect(weakLeft == nil)
    #expect(weakRight == nil)
  }

  @Test func ownerBoundSubscriptionEndsWithItsOwner() {
    let title = CurrentValue(0)
    weak var weakOwner: Witness?
    do {
      let owner = Witness()
      weakOwner = owner
      title.subscribe(owner) { owner, value in owner.received.append(value) }
    }
    #expect(weakOwner == nil)
    #expect(title.subscriberCount == 0)
  }

  // MARK: What Emitter has: unsubscribing by owner and all, limits

  @Test func unsubscribeOwnerEndsOnlyItsSubscriptions() {
    let title = CurrentValue(0)
    let first = Witness()
    let second = Witness()
    title.subscribe(first) { first, value in first.received.append(value) }
    title.subscribe(first, limit: 10) { first, value in first.received.append(value * 10) }
    title.subscribe(second) { second, value in second.received.append(value) }
    title.unsubscribe(first)
    title.value = 1
    #expect(first.received == [0, 0])
    #expect(second.received == [0, 1])
    #expect(title.subscriberCount == 1)
  }

  @Test func unsubscribeAllEndsEverySubscription() {
    let volume = CurrentValue(0)
    var heard: [Int] = []
    volume.subscribe { heard.append($0) }
    volume.subscribe(limit: 5) { heard.append($0 * 10) }
    volume.unsubscribeAll()
    volume.value = 1
    #expect(heard == [0, 0])
    #expect(volume.subscriberCount == 0)
    volume.subscribe { heard.append($0) }
    volume.value = 2
    #expect(heard == [0, 0, 1, 2])
  }

  @Test func theCurrentValueCountsTowardsTheLimit() {
    let volume = CurrentValue(0)
    var heard: [Int] = []
    volume.subscribe(limit: 2) { heard.append($0) }
    for value in 1...3 { volume.value = value }
    #expect(heard == [0, 1])
    #expect(volume.subscriberCount == 0)
  }

  @Test func nonPositiveLimitDeliversNothingNotEvenTheCurrentValue() {
    let volume = CurrentValue(0)
    var heard: [Int] = []
    volume.subscribe(limit: 0) { heard.append($0) }
    volume.subscribe(Witness(), limit: -1) { _, value in heard.append(value) }
    volume.value = 1
    #expect(heard.isEmpty)
    #expect(volume.subscriberCount == 0)
  }

  @Test func queueSubscriptionWithALimitCountsTheCurrentValue() {
    let queue = DispatchQueue(label: "delivery")
    let volume = CurrentValue(0)
    let heard = Recorder<Int>()
    let witness = Recorder<Int>()
    volume.subscribe(on: queue, limit: 2) { heard.append($0) }
    volume.subscribe(witness, on: queue, limit: 1) { witness, value in
      witness.append(value)
    }
    for value in 1...5 { volume.value = value }
    queue.sync {}
    #expect(heard.values == [0, 1])
    #expect(witness.values == [0])
    #expect(volume.subscriberCount == 0)
  }

  // MARK: Once (SwiftEvents' once handlers)

  @Test func aOnceHandlerRunsExactlyOnceTheCurrentValueIncluded() {
    let status = CurrentValue("idle")
    var calls: [String] = []
    status.subscribe(limit: 1) { calls.append($0) }
    status.value = "busy"
    status.value = "done"
    #expect(calls == ["idle"])
    #expect(status.subscriberCount == 0)
  }

  @Test func aOnceHandlerOfNewValuesOnlyRunsOnceOnTheNextWrite() {
    let status = CurrentValue("idle")
    let witness = Witness()
    status.subscribe(witness, replayingLast: false, limit: 1) { witness, _ in
      witness.received.append(witness.received.count)
    }
    #expect(witness.received.isEmpty)
    status.value = "busy"
    status.value = "done"
    #expect(witness.received == [0])
    #expect(status.subscriberCount == 0)
  }

  @Test func aHandlerCannotUnsubscribeItselfFromTheCurrentValuesDelivery() {
    // Why `limit: 1` is the way to run once: the current value is delivered inside
    // `subscribe`, before the subscription exists to be ended.
    let status = CurrentValue("idle")
    var calls: [String] = []
    var subscription: Subscription?
    subscription = status.subscribe { value in
      calls.append(value)
      subscription?.unsubscribe()
    }
    status.value = "busy"
    status.value = "done"
    #expect(calls == ["idle", "busy"])
  }

  // MARK: New values only

  @Test func replayingLastFalseDeliversOnlyLaterWrites() {
    let volume = CurrentValue(0)
    var heard: [Int] = []
    let witness = Witness()
    volume.subscribe(replayingLast: false) { heard.append($0) }
    volume.subscribe(witness, replayingLast: false) { witness, value in
      witness.received.append(value)
    }
    #expect(heard.isEmpty)
    #expect(witness.received.isEmpty)
    volume.value = 1
    #expect(heard == [1])
    #expect(witness.received == [1])
  }

  @Test func replayingLastFalseOnAQueueDeliversOnlyLaterWrites() {
    let queue = DispatchQueue(label: "delivery")
    let volume = CurrentValue(0)
    let heard = Recorder<Int>()
    let witness = Recorder<Int>()
    volume.subscribe(on: queue, replayingLast: false) { heard.append($0) }
    volume.subscribe(witness, on: queue, replayingLast: false) { witness, value in
      witness.append(value)
    }
    queue.sync {}
    #expect(heard.values.isEmpty)
    volume.value = 1
    queue.sync {}
    #expect(heard.values == [1])
    #expect(witness.values == [1])
  }

  @Test func replayingLastTrueIsTheDefaultOfEveryForm() {
    let queue = DispatchQueue(label: "delivery")
    let volume = CurrentValue(7)
    let heard = Recorder<Int>()
    let witness = Recorder<Int>()
    volume.subscribe(replayingLast: true) { heard.append($0) }
    volume.subscribe(limit: nil) { heard.append($0) }
    volume.subscribe(witness, limit: nil) { witness, value in witness.append(value) }
    volume.subscribe(on: queue, limit: nil) { heard.append($0) }
    volume.subscribe(witness, on: queue, limit: nil) { witness, value in
      witness.append(value)
    }
    queue.sync {}
    #expect(heard.values == [7, 7, 7])
    #expect(witness.values == [7, 7])
  }
}
