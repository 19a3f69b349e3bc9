import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct EmitterTests {
  // MARK: Sending

  @Test func sendDeliversToEverySubscriberInSubscriptionOrder() {
    let emitter = Emitter<Int>()
    var calls: [String] = []
    emitter.subscribe { calls.append("a\($0)") }
    emitter.subscribe { calls.append("b\($0)") }
    emitter.send(1)
    emitter.send(2)
    #expect(calls == ["a1", "b1", "a2", "b2"])
  }

  @Test func sendWithoutSubscribersDoesNothingButCount() {
    let emitter = Emitter<Int>()
    emitter.send(1)
    #expect(emitter.sendCount == 1)
    #expect(emitter.lastValue == 1)
  }

  @Test func anEmitterOfVoidSendsWithoutAnArgument() {
    let didTap = Emitter<Void>()
    var taps = 0
    didTap.subscribe { taps += 1 }
    didTap.send()
    didTap.send()
    #expect(taps == 2)
  }

  @Test func subscribersRunOnTheSendingThread() {
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "sender")
    queue.setSpecific(key: key, value: "sender")
    let emitter = Emitter<Int>()
    let seenOn = Recorder<String?>()
    emitter.subscribe { _ in seenOn.append(DispatchQueue.getSpecific(key: key)) }
    queue.sync { emitter.send(1) }
    #expect(seenOn.values == ["sender"])
  }

  @Test func unsubscribeStopsDelivery() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    let subscription = emitter.subscribe { seen.append($0) }
    emitter.send(1)
    subscription.unsubscribe()
    emitter.send(2)
    #expect(seen == [1])
    #expect(subscription.isUnsubscribed)
    #expect(emitter.subscriberCount == 0)
  }

  @Test func droppingTheSubscriptionDoesNotUnsubscribe() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    do { _ = emitter.subscribe { seen.append($0) } }
    emitter.send(1)
    #expect(seen == [1])
  }

  // MARK: Replay

  @Test func replayingLastDeliversTheLastValueBeforeSubscribeReturns() {
    let emitter = Emitter<String>()
    emitter.send("first")
    emitter.send("second")
    var seen: [String] = []
    emitter.subscribe(replayingLast: true) { seen.append($0) }
    #expect(seen == ["second"])
    emitter.send("third")
    #expect(seen == ["second", "third"])
  }

  @Test func replayingLastBeforeAnySendDeliversNothingYet() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    emitter.subscribe(replayingLast: true) { seen.append($0) }
    #expect(seen.isEmpty)
    emitter.send(1)
    #expect(seen == [1])
  }

  @Test func plainSubscribersDoNotReceiveTheLastValue() {
    let emitter = Emitter<Int>()
    emitter.send(1)
    var seen: [Int] = []
    emitter.subscribe { seen.append($0) }
    #expect(seen.isEmpty)
  }

  @Test func lastValueIsTheLastValueSent() {
    let emitter = Emitter<Int>()
    #expect(emitter.lastValue == nil)
    emitter.send(4)
    emitter.send(5)
    #expect(emitter.lastValue == 5)
  }

  // MARK: Limits

  @Test func limitOfOneEndsTheSubscriptionAfterTheNextValue() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    emitter.subscribe(limit: 1) { seen.append($0) }
    #expect(emitter.subscriberCount == 1)
    emitter.send(1)
    emitter.send(2)
    #expect(seen == [1])
    #expect(emitter.subscriberCount == 0)
  }

  @Test func limitOfThreeDeliversThreeValues() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    emitter.subscribe(limit: 3) { seen.append($0) }
    for value in 1...5 { emitter.send(value) }
    #expect(seen == [1, 2, 3])
  }

  @Test func theReplayedValueCountsTowardsTheLimit() {
    let emitter = Emitter<Int>()
    emitter.send(0)
    var seen: [Int] = []
    emitter.subscribe(replayingLast: true, limit: 2) { seen.append($0) }
    for value in 1...3 { emitter.send(value) }
    #expect(seen == [0, 1])
  }

  @Test func nonPositiveLimitDeliversNothing() {
    let emitter = Emitter<Int>()
    emitter.send(0)
    var seen: [Int] = []
    emitter.subscribe(replayingLast: true, limit: 0) { seen.append($0) }
    emitter.subscribe(limit: -1) { seen.append($0) }
    emitter.send(1)
    #expect(seen.isEmpty)
    #expect(emitter.subscriberCount == 0)
  }

  @Test func limitedSubscriberThatSendsFromItsLastCallIsNotCalledAgain() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    emitter.subscribe(limit: 1) { value in
      seen.append(value)
      emitter.send(value + 1)
    }
    emitter.send(1)
    #expect(seen == [1])
  }

  // MARK: Queues

  @Test func queueSubscriberReceivesEveryValueOnItsQueueInOrder() {
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "delivery")
    queue.setSpecific(key: key, value: "delivery")
    let emitter = Emitter<Int>()
    let seen = Recorder<Int>()
    let seenOn = Recorder<String?>()
    emitter.subscribe(on: queue) { value in
      seenOn.append(DispatchQueue.getSpecific(key: key))
      seen.append(value)
    }
    for value in 1...100 { emitter.send(value) }
    queue.sync {}
    #expect(seen.values == Array(1...100))
    #expect(Set(seenOn.values) == ["delivery"])
  }

  @Test func queueSubscriberReceivesTheReplayFirst() {
    let queue = DispatchQueue(label: "delivery")
    let emitter = Emitter<Int>()
    emitter.send(0)
    let seen = Recorder<Int>()
    emitter.subscribe(on: queue, replayingLast: true) { seen.append($0) }
    emitter.send(1)
    queue.sync {}
    #expect(seen.values == [0, 1])
  }

  @Test func valuesWaitingOnTheQueueAreDroppedWhenUnsubscribed() {
    let queue = DispatchQueue(label: "delivery")
    let emitter = Emitter<Int>()
    let seen = Recorder<Int>()
    queue.suspend()
    let subscription = emitter.subscribe(on: queue) { seen.append($0) }
    emitter.send(1)
    emitter.send(2)
    subscription.unsubscribe()
    queue.resume()
    queue.sync {}
    #expect(seen.values.isEmpty)
  }

  @Test func queueSubscriptionWithALimitDeliversThatManyValues() {
    let queue = DispatchQueue(label: "delivery")
    let emitter = Emitter<Int>()
    let seen = Recorder<Int>()
    emitter.subscribe(on: queue, limit: 2) { seen.append($0) }
    for value in 1...5 { emitter.send(value) }
    queue.sync {}
    #expect(seen.values == [1, 2])
    #expect(emitter.subscriberCount == 0)
  }

  /// A limit counts the values delivered, wherever the subscriber runs: on a queue, as the queue
  /// runs them (as on an actor), so the subscription lasts until its last value is delivered.
  @Test func aQueueSubscriptionsLimitCountsTheValuesItsQueueDelivers() {
    let queue = DispatchQueue(label: "delivery")
    let emitter = SendableEmitter<Int>()
    let seen = Recorder<Int>()
    queue.suspend()
    emitter.subscribe(on: queue, limit: 1) { seen.append($0) }
    emitter.send(1)
    emitter.send(2)
    #expect(emitter.subscriberCount == 1)
    queue.resume()
    queue.sync {}
    #expect(seen.values == [1])
    #expect(emitter.subscriberCount == 0)
  }

  // MARK: Owners

  @Test func ownerBoundSubscriberReceivesTheOwnerWithEachValue() {
    let emitter = Emitter<Int>()
    let witness = Witness()
    emitter.subscribe(witness) { witness, value in witness.received.append(value) }
    emitter.send(1)
    emitter.send(2)
    #expect(witness.received == [1, 2])
  }

  @Test func ownerBoundSubscriberOnAQueueReceivesTheOwnerThere() {
    let queue = DispatchQueue(label: "delivery")
    let emitter = Emitter<Int>()
    let witness = Recorder<Int>()
    emitter.subscribe(witness, on: queue, replayingLast: true) { witness, value in
      witness.record(value)
    }
    emitter.send(1)
    queue.sync {}
    #expect(witness.values == [1])
  }

  @Test func unsubscribeOwnerEndsOnlyItsSubscriptions() {
    let emitter = Emitter<Int>()
    let first = Witness()
    let second = Witness()
    emitter.subscribe(first) { first, value in first.received.append(value) }
    emitter.subscribe(first, limit: 10) { first, value in first.received.append(value * 10) }
    emitter.subscribe(second) { second, value in second.received.append(value) }
    emitter.unsubscribe(first)
    emitter.send(1)
    #expect(first.received.isEmpty)
    #expect(second.received == [1])
    #expect(emitter.subscriberCount == 1)
  }

  @Test func unsubscribeAllEndsEverySubscription() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    emitter.subscribe { seen.append($0) }
    emitter.subscribe(limit: 5) { seen.append($0) }
    emitter.unsubscribeAll()
    emitter.send(1)
    #expect(seen.isEmpty)
    #expect(emitter.subscriberCount == 0)
    emitter.subscribe { seen.append($0) }
    emitter.send(2)
    #expect(seen == [2])
  }

  // MARK: Counters

  @Test func countersCountSubscribersAndSends() {
    let emitter = Emitter<Int>()
    let first = emitter.subscribe { _ in }
    emitter.subscribe { _ in }
    #expect(emitter.subscriberCount == 2)
    first.unsubscribe()
    #expect(emitter.subscriberCount == 1)
    for value in 0..<5 { emitter.send(value) }
    #expect(emitter.sendCount == 5)
    emitter.resetSendCount()
    #expect(emitter.sendCount == 0)
    emitter.send(5)
    #expect(emitter.sendCount == 1)
  }

  @Test func maxSubscribersDefaultsToOneHundredAndCanBeRaised() {
    let emitter = Emitter<Int>()
    #expect(emitter.maxSubscribers == 100)
    emitter.maxSubscribers = 150
    for _ in 0..<150 { emitter.subscribe { _ in } }
    #expect(emitter.subscriberCount == 150)
  }

  @Test func aLimitBelowTheSubscriberCountIsRefusedAtOnceWithTheCount() {
    let emitter = Emitter<Int>()
    let subscriptions = (0..<3).map { _ in emitter.subscribe { _ in } }
    #expect(throws: MaxSubscribersBelowCount(requested: 2, subscriberCount: 3)) {
      try emitter.setMaxSubscribers(2)
    }
    #expect(emitter.maxSubscribers == 100)
    #expect(throws: MaxSubscribersBelowCount(requested: -1, subscriberCount: 3)) {
      try emitter.setMaxSubscribers(-1)
    }
    #expect(throws: Never.self) { try emitter.setMaxSubscribers(3) }
    #expect(emitter.maxSubscribers == 3)
    subscriptions[0].unsubscribe()
    #expect(throws: Never.self) { try emitter.setMaxSubscribers(2) }
    #expect(emitter.maxSubscribers == 2)
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func aLimitBelowTheCountOfSubscribersWithLostOwnersIsAccepted() {
    let emitter = Emitter<Int>()
    let kept = emitter.subscribe { _ in }
    do {
      let owner = Witness()
      emitter.subscribe(owner) { _, _ in }
    }
    #expect(throws: Never.self) { try emitter.setMaxSubscribers(1) }
    kept.unsubscribe()
  }

  @Test func everyMulticastSourceRefusesALimitBelowItsCount() {
    let current = CurrentValue(0)
    let shared = SendableEmitter<Int>()
    let subscriptions = [
      current.subscribe { _ in }, current.subscribe { _ in },
      Subscription(shared.subscribe(on: .sendingThread) { _ in }),
      Subscription(shared.subscribe(on: .sendingThread) { _ in }),
    ]
    #expect(throws: MaxSubscribersBelowCount(requested: 1, subscriberCount: 2)) {
      try current.setMaxSubscribers(1)
    }
    #expect(throws: MaxSubscribersBelowCount(requested: 1, subscriberCount: 2)) {
      try shared.setMaxSubscribers(1)
    }
    #expect(current.maxSubscribers == 100)
    #expect(shared.maxSubscribers == 100)
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func aSendableEmittersSendCountCanBeReset() {
    let shared = SendableEmitter<Int>()
    shared.send(1)
    shared.send(2)
    #expect(shared.sendCount == 2)
    shared.resetSendCount()
    #expect(shared.sendCount == 0)
    shared.send(3)
    #expect(shared.sendCount == 1)
  }

  /// Past `maxSubscribers`, a source warns once, on standard error, and the program and every
  /// subscription go on (a list of 150 cells observing one value is a legitimate app).
  @Test func subscribingPastMaxSubscribersWarnsOnceAndTheProgramGoesOn() async {
    let result = await #expect(
      processExitsWith: .success, observing: [\.standardErrorContent]
    ) {
      let emitter = Emitter<Int>()
      emitter.maxSubscribers = 2
      var received = 0
      for _ in 0..<5 { emitter.subscribe { _ in received += 1 } }
      emitter.send(1)
      precondition(received == 5, "every subscriber past the limit is delivered")
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Emitter<Int> has 3 subscribers, more than its maxSubscribers (2)"))
    #expect(message.components(separatedBy: "subscriptions may be leaking").count == 2)
  }

  // MARK: Re-entrancy

  @Test func valueSentFromACallbackIsDeliveredAtOnceToEverySubscriber() {
    let emitter = Emitter<Int>()
    var calls: [String] = []
    emitter.subscribe { value in
      calls.append("a\(value)")
      if value == 1 { emitter.send(2) }
    }
    emitter.subscribe { calls.append("b\($0)") }
    emitter.send(1)
    // The inner send reaches every subscriber before the outer send goes on to "b".
    #expect(calls == ["a1", "a2", "b2", "b1"])
    emitter.unsubscribeAll()  // A subscriber captures the emitter: a cycle until it ends.
  }

  @Test func subscriberAddedDuringASendReceivesOnlyLaterValues() {
    let emitter = Emitter<Int>()
    var late: [Int] = []
    var added = false
    emitter.subscribe { _ in
      guard !added else { return }
      added = true
      emitter.subscribe { late.append($0) }
    }
    emitter.send(1)
    emitter.send(2)
    #expect(late == [2])
    emitter.unsubscribeAll()  // A subscriber captures the emitter: a cycle until it ends.
  }

  @Test func subscriberRemovedDuringASendIsNotCalledWithThatValue() {
    let emitter = Emitter<Int>()
    var second: Subscription?
    var seen: [Int] = []
    emitter.subscribe { _ in second?.unsubscribe() }
    second = emitter.subscribe { seen.append($0) }
    emitter.send(1)
    #expect(seen.isEmpty)
  }

  @Test func subscriberMayUnsubscribeItself() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = emitter.subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    emitter.send(1)
    emitter.send(2)
    #expect(seen == [1])
  }

  @Test func replayedSubscriberMaySendFromItsReplay() {
    let emitter = Emitter<Int>()
    emitter.send(1)
    var seen: [Int] = []
    emitter.subscribe(replayingLast: true) { value in
      seen.append(value)
      if value == 1 { emitter.send(2) }
    }
    #expect(seen == [1, 2])
    #expect(emitter.lastValue == 2)
    emitter.unsubscribeAll()  // The subscriber captures the emitter: a cycle until it ends.
  }

  // MARK: Composition

  @Test func operatorsComposeWithAnEmitter() {
    let emitter = Emitter<Int>()
    var seen: [String] = []
    let subscription = emitter.filter { $0.isMultiple(of: 2) }.map { "#\($0)" }
      .subscribe { seen.append($0) }
    for value in 1...4 { emitter.send(value) }
    #expect(seen == ["#2", "#4"])
    #expect(emitter.subscriberCount == 1)
    subscription.unsubscribe()
    #expect(emitter.subscriberCount == 0)
  }

  @Test func anEmitterCanBeHandedOutAsAValueObservable() {
    let emitter = Emitter<Int>()
    let stream: ValueObservable<Int> = emitter
    var seen: [Int] = []
    stream.merge(with: CurrentValue(0)).subscribe { seen.append($0) }
    emitter.send(1)
    #expect(seen == [0, 1])
  }
}
