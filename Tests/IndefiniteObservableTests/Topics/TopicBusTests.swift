import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

private struct Login: Sendable, Equatable {
  var user: String
}

extension Topic where Payload == Int {
  fileprivate static var count: Topic { Topic("count") }
}

extension Topic where Payload == Login {
  fileprivate static var loggedIn: Topic { Topic("loggedIn") }
}

/// An object that owns subscriptions or sends events; it holds nothing.
private final class Party: Sendable {}

@MainActor @Suite(.checksLiveResources) struct TopicBusTests {
  @Test func publishDeliversTopicSenderAndPayloadToEverySubscriber() {
    let bus = TopicBus()
    let sender = Party()
    let first = Recorder<TopicEvent<Login>>()
    let second = Recorder<TopicEvent<Login>>()
    bus.source(for: .loggedIn).subscribe(first.record)
    bus.source(for: .loggedIn).subscribe(second.record)

    bus.publish(.loggedIn, Login(user: "ada"), from: sender)

    for recorder in [first, second] {
      #expect(recorder.values.map(\.payload) == [Login(user: "ada")])
      #expect(recorder.values.first?.topic == .loggedIn)
      #expect(recorder.values.first?.sender === sender)
    }
  }

  @Test func publishingOnATopicWithoutSubscribersDoesNothing() {
    let bus = TopicBus()
    bus.publish(.count, 1)
    let seen = Recorder<Int>()
    bus.source(for: .count).subscribe { seen.record($0.payload) }
    #expect(seen.values.isEmpty)
  }

  @Test func topicsWithTheSameNameAndDifferentPayloadTypesAreDistinct() {
    let bus = TopicBus()
    let ints = Recorder<Int>()
    let strings = Recorder<String>()
    bus.source(for: Topic<Int>("value")).subscribe { ints.record($0.payload) }
    bus.source(for: Topic<String>("value")).subscribe { strings.record($0.payload) }

    bus.publish(Topic<Int>("value"), 7)
    bus.publish(Topic<String>("value"), "seven")

    #expect(ints.values == [7])
    #expect(strings.values == ["seven"])
  }

  @Test func payloadlessTopicsArePublishedWithoutAValue() {
    let bus = TopicBus()
    let ticks = Recorder<String>()
    bus.source(for: Topic<Void>("tick")).subscribe { ticks.record($0.topic.name) }
    bus.publish(Topic<Void>("tick"))
    bus.publish(Topic<Void>("tick"))
    #expect(ticks.values == ["tick", "tick"])
  }

  @Test func senderFilterDeliversOnlyThatSendersEvents() {
    let bus = TopicBus()
    let mine = Party()
    let other = Party()
    let seen = Recorder<Int>()
    bus.source(for: .count, from: mine).subscribe { seen.record($0.payload) }

    bus.publish(.count, 1, from: mine)
    bus.publish(.count, 2, from: other)
    bus.publish(.count, 3)
    bus.publish(.count, 4, from: mine)

    #expect(seen.values == [1, 4])
  }

  @Test func aDeallocatedFilteredSenderMatchesNothing() {
    let bus = TopicBus()
    let seen = Recorder<Int>()
    weak var weakSender: Party?
    do {
      let sender = Party()
      weakSender = sender
      bus.source(for: .count, from: sender).subscribe { seen.record($0.payload) }
      bus.publish(.count, 1, from: sender)
    }
    #expect(weakSender == nil)
    bus.publish(.count, 2)  // a nil sender must not match a filter whose sender is gone
    bus.publish(.count, 3, from: Party())
    #expect(seen.values == [1])
  }

  @Test func onceDeliversOnlyTheNextEvent() {
    let bus = TopicBus()
    let seen = Recorder<Int>()
    let subscription = bus.source(for: .count).subscribe(limit: 1) { seen.record($0.payload) }
    bus.publish(.count, 1)
    bus.publish(.count, 2)
    #expect(seen.values == [1])
    subscription.unsubscribe()  // harmless after the one delivery
  }

  @Test func onceWithASenderFilterWaitsForThatSender() {
    let bus = TopicBus()
    let sender = Party()
    let seen = Recorder<Int>()
    bus.source(for: .count, from: sender).subscribe(limit: 1) { seen.record($0.payload) }
    bus.publish(.count, 1)
    bus.publish(.count, 2, from: sender)
    bus.publish(.count, 3, from: sender)
    #expect(seen.values == [2])
  }

  @Test func onceDeliversExactlyOneOfManyConcurrentPublishes() {
    for _ in 0..<50 {
      let bus = TopicBus()
      let seen = Recorder<Int>()
      let delivery = DispatchQueue(label: "once")
      bus.source(for: .count).subscribe(on: delivery, limit: 1) { seen.record($0.payload) }
      DispatchQueue.concurrentPerform(iterations: 8) { bus.publish(.count, $0) }
      delivery.sync {}
      #expect(seen.count == 1)
    }
  }

  @Test func onceDeliversOnceWhenTwoPublishesHoldItAtTheSameTime() {
    let bus = TopicBus()
    let arrived = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    // Handlers of code on no actor run on a queue; a concurrent one lets both deliveries of the
    // first subscriber hold at once while the once subscriber's two wait to be admitted.
    let delivery = DispatchQueue(label: "hold", attributes: .concurrent)
    bus.source(for: .count).subscribe(on: delivery) { _ in
      arrived.signal()
      proceed.wait()
    }
    let seen = Recorder<Int>()
    bus.source(for: .count).subscribe(on: delivery, limit: 1) { seen.record($0.payload) }
    let publishes = (1...2).map { n in startThread { bus.publish(.count, n) } }
    arrived.wait()
    arrived.wait()
    proceed.signal()
    proceed.signal()
    for published in publishes { published.wait() }
    delivery.sync(flags: .barrier) {}
    #expect(seen.count == 1)
  }

  @Test func unsubscribeStopsDeliveryAndReleasesTheHandler() {
    let bus = TopicBus()
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    let seen = Recorder<Int>()
    let subscription: SendableSubscription
    do {
      let captured = Captured()
      weakCaptured = captured
      subscription = bus.source(for: .count).subscribe { event in
        _ = captured
        seen.record(event.payload)
      }
    }
    bus.publish(.count, 1)
    subscription.unsubscribe()
    bus.publish(.count, 2)
    #expect(seen.values == [1])
    #expect(weakCaptured == nil)
  }

  @Test func unsubscribeWhileAnotherThreadIsPublishingPreventsTheDeliveryNotYetBegun() {
    let bus = TopicBus()
    let inFirstHandler = DispatchSemaphore(value: 0)
    let mayContinue = DispatchSemaphore(value: 0)
    let seen = Recorder<String>()
    let delivery = DispatchQueue(label: "serial")
    bus.source(for: .count).subscribe(on: delivery) { _ in
      inFirstHandler.signal()
      mayContinue.wait()  // the second delivery waits behind this one on the queue
    }
    let second = bus.source(for: .count).subscribe(on: delivery) { _ in seen.record("second") }
    let published = startThread { bus.publish(.count, 1) }
    inFirstHandler.wait()
    second.unsubscribe()
    mayContinue.signal()
    published.wait()
    delivery.sync {}
    #expect(seen.values.isEmpty)
  }

  @Test func droppingTheSubscriptionDoesNotUnsubscribe() {
    let bus = TopicBus()
    let seen = Recorder<Int>()
    do {
      _ = bus.source(for: .count).subscribe { seen.record($0.payload) }
    }
    bus.publish(.count, 1)
    #expect(seen.values == [1])
  }

  @Test func ownerHandlersReceiveTheOwner() {
    let bus = TopicBus()
    let owner = Party()
    let owners = Recorder<ObjectIdentifier>()
    bus.source(for: .count).subscribe(owner) { me, _ in owners.record(ObjectIdentifier(me)) }
    bus.publish(.count, 1)
    #expect(owners.values == [ObjectIdentifier(owner)])
  }

  /// One rule for every source: a handler written on an actor may capture and be bound to
  /// non-`Sendable` state, on a bus as on an `Emitter` (the bus used to require `@Sendable`
  /// handlers and `Sendable` owners).
  @Test func handlersAndOwnersNeedNotBeSendableAsOnAnEmitter() {
    final class Tally {
      var count = 0
    }
    let bus = TopicBus()
    let emitter = Emitter<Int>()
    let tally = Tally()
    var heard: [Int] = []
    bus.source(for: .count).subscribe(tally) { tally, event in tally.count += event.payload }
    emitter.subscribe(tally) { tally, value in tally.count += value }
    bus.source(for: .count).subscribe { heard.append($0.payload) }
    emitter.subscribe { heard.append($0) }
    bus.publish(.count, 1)
    emitter.send(10)
    #expect(tally.count == 11)
    #expect(heard == [1, 10])
  }

  /// A queue of the subscriber's choosing, as GLPubSub's `setPubSubQueue:`.
  @Test func aHandlerMayRunOnAQueueOfItsChoosing() {
    let bus = TopicBus()
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "pubsub")
    queue.setSpecific(key: key, value: "pubsub")
    let seenOn = Recorder<String?>()
    bus.source(for: .count).subscribe(on: queue) { _ in
      seenOn.record(DispatchQueue.getSpecific(key: key))
    }
    bus.publish(.count, 1)
    queue.sync {}
    #expect(seenOn.values == ["pubsub"])
  }

  @Test func unsubscribingAnOwnerFromATopicKeepsItsOtherTopicsAndOtherOwners() {
    let bus = TopicBus()
    let owner = Party()
    let other = Party()
    let seen = Recorder<String>()
    bus.source(for: .count).subscribe(owner) { _, e in seen.record("owner count \(e.payload)") }
    bus.source(for: .count, from: other).subscribe(owner) { _, e in
      seen.record("owner from \(e.payload)")
    }
    bus.source(for: .loggedIn).subscribe(owner) { _, e in
      seen.record("owner login \(e.payload.user)")
    }
    bus.source(for: .count).subscribe(other) { _, e in seen.record("other count \(e.payload)") }

    bus.unsubscribe(owner, from: .count)
    bus.publish(.count, 1, from: other)
    bus.publish(.loggedIn, Login(user: "ada"))

    #expect(seen.values == ["other count 1", "owner login ada"])
  }

  @Test func unsubscribeAllEndsEveryTopicOfTheOwnerOnly() {
    let bus = TopicBus()
    let owner = Party()
    let other = Party()
    let seen = Recorder<String>()
    bus.source(for: .count).subscribe(owner) { _, e in seen.record("owner count \(e.payload)") }
    bus.source(for: .loggedIn).subscribe(owner) { _, e in
      seen.record("owner login \(e.payload.user)")
    }
    bus.source(for: .count).subscribe(other) { _, e in seen.record("other count \(e.payload)") }

    bus.unsubscribe(owner)
    bus.publish(.count, 1)
    bus.publish(.loggedIn, Login(user: "ada"))

    #expect(seen.values == ["other count 1"])
  }

  @Test func theBusKeepsOwnersWeaklyAndForgetsTheirSubscriptions() {
    let bus = TopicBus()
    final class Captured: Sendable {}
    weak var weakOwner: Party?
    weak var weakCaptured: Captured?
    let seen = Recorder<Int>()
    do {
      let owner = Party()
      let captured = Captured()
      weakOwner = owner
      weakCaptured = captured
      bus.source(for: .count).subscribe(owner) { _, event in
        _ = captured
        seen.record(event.payload)
      }
      bus.publish(.count, 1)
    }
    #expect(weakOwner == nil)
    bus.publish(.count, 2)  // finds the owner gone and removes its subscription
    #expect(seen.values == [1])
    #expect(weakCaptured == nil)
  }

  @Test func aSubscriptionDoesNotKeepTheBusAlive() {
    weak var weakBus: TopicBus?
    let subscription: SendableSubscription
    do {
      let bus = TopicBus()
      weakBus = bus
      subscription = bus.source(for: .count).subscribe { _ in }
    }
    #expect(weakBus == nil)
    subscription.unsubscribe()  // still safe
  }

  @Test func handlersMayPublishSubscribeAndUnsubscribeDuringAPublish() {
    let bus = TopicBus()
    let seen = Recorder<String>()
    let late = Recorder<Int>()
    nonisolated(unsafe) var lateSubscription: SendableSubscription?
    let selfRemoving = SubscriptionBox()
    selfRemoving.subscription = bus.source(for: .count).subscribe { event in
      seen.record("self-removing \(event.payload)")
      selfRemoving.subscription?.unsubscribe()
    }
    // This handler captures the bus, so the test ends its subscription itself.
    let first = bus.source(for: .count).subscribe { event in
      seen.record("first \(event.payload)")
      if event.payload == 1 {
        lateSubscription = bus.source(for: .count).subscribe { late.record($0.payload) }
        bus.publish(.count, 2)
      }
    }

    bus.publish(.count, 1)

    // The nested publish of 2 runs inside the delivery of 1, after the self-removing subscriber
    // left; the subscriber added during the publish of 1 does not receive 1, but receives 2.
    #expect(seen.values == ["self-removing 1", "first 1", "first 2"])
    #expect(late.values == [2])
    lateSubscription?.unsubscribe()
    first.unsubscribe()
  }

  @Test func streamIsAValueStreamThatComposesWithOperators() {
    let bus = TopicBus()
    let sender = Party()
    let seen = Recorder<Int>()
    let subscription = bus.source(for: .count, from: sender).stream()
      .map(\.payload)
      .filter { $0.isMultiple(of: 2) }
      .subscribe(seen.record)

    for n in 1...6 { bus.publish(.count, n, from: sender) }
    bus.publish(.count, 8)
    subscription.unsubscribe()
    bus.publish(.count, 10, from: sender)

    #expect(seen.values == [2, 4, 6])
  }

  @Test func theStreamOfADeallocatedSenderDeliversNothing() {
    let bus = TopicBus()
    let stream: ValueObservable<TopicEvent<Int>>
    do {
      stream = bus.source(for: .count, from: Party()).stream()
    }
    let seen = Recorder<Int>()
    stream.subscribe { seen.record($0.payload) }
    bus.publish(.count, 1)
    bus.publish(.count, 2, from: Party())  // perhaps at the gone sender's address: another sender
    #expect(seen.values.isEmpty)
  }

  @Test func theSharedBusIsOneBus() {
    let topic = Topic<Int>("TopicBusTests.shared.\(UInt64.random(in: 0...UInt64.max))")
    let seen = Recorder<Int>()
    let subscription = TopicBus.shared.source(for: topic).subscribe { seen.record($0.payload) }
    TopicBus.shared.publish(topic, 5)
    subscription.unsubscribe()
    #expect(seen.values == [5])
  }
}

/// Lets a handler reach its own subscription.
private final class SubscriptionBox: @unchecked Sendable {
  // Written once before any publish, then only read.
  var subscription: SendableSubscription?
}
