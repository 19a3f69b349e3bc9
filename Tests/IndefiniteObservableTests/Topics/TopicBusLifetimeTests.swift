import Dispatch
import IndefiniteObservable
import TestSupport
import Testing

@testable import Multicast

extension Topic where Payload == Int {
  fileprivate static var count: Topic { Topic("count") }
}

/// A payload that tests watch through a weak reference.
private final class Parcel: Sendable {}

/// An object that owns subscriptions or sends events; it holds nothing.
private final class Party: Sendable {}

/// What a bus keeps alive, for how long, and what it does when a handler it releases runs code
/// in its deinit.
@MainActor @Suite(.checksLiveResources) struct TopicBusLifetimeTests {
  @Test func theBusKeepsNeitherTheEventNorItsSenderOnceThePublishReturns() {
    let bus = TopicBus()
    let topic = Topic<Parcel>("parcel")
    let received = Counter()
    bus.source(for: topic).subscribe { _ in received.increment() }
    weak var weakParcel: Parcel?
    weak var weakSender: Party?
    do {
      let parcel = Parcel()
      let sender = Party()
      weakParcel = parcel
      weakSender = sender
      bus.publish(topic, parcel, from: sender)
    }
    #expect(received.value == 1)
    #expect(weakParcel == nil)
    #expect(weakSender == nil)
  }

  @Test func aTopicMayHaveMoreThanAHundredSubscribers() {
    let bus = TopicBus()
    let received = Counter()
    let subscriptions = (0..<250).map { _ in
      bus.source(for: .count).subscribe { _ in received.increment() }
    }
    bus.publish(.count, 1)
    #expect(received.value == 250)
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func onceWithASenderFilterIsNotUsedUpByOtherSendersPublishingAtTheSameTime() {
    for _ in 0..<20 {
      let bus = TopicBus()
      let mine = Party()
      let other = Party()
      let seen = Recorder<Int>()
      let delivery = DispatchQueue(label: "once")
      bus.source(for: .count, from: mine).subscribe(on: delivery, limit: 1) {
        seen.record($0.payload)
      }
      DispatchQueue.concurrentPerform(iterations: 8) { thread in
        for i in 0..<200 { bus.publish(.count, thread * 1000 + i, from: other) }
        if thread == 3 { bus.publish(.count, -1, from: mine) }
      }
      bus.publish(.count, -2, from: mine)
      delivery.sync {}
      #expect(seen.values == [-1])
    }
  }

  @Test func aReleasedHandlerMayUnsubscribeAndPublishInItsDeinit() {
    // The handler of `first` captures an object that, when the bus lets go of the handler,
    // unsubscribes `second` and publishes: no lock of the bus may be held at that moment.
    let bus = TopicBus()
    let seen = Recorder<Int>()
    let second = bus.source(for: .count).subscribe { seen.record($0.payload) }
    let first: SendableSubscription
    do {
      let onRelease = OnRelease {
        second.unsubscribe()
        bus.publish(.count, 99)
      }
      first = bus.source(for: .count).subscribe { _ in _ = onRelease }
    }
    first.unsubscribe()  // releases the handler and runs the deinit, on this thread
    bus.publish(.count, 1)
    #expect(seen.values.isEmpty)
  }

  @Test func anOwnerDeallocatedInsideAPublishIsReleasedWithoutDeadlock() async {
    // The owner's last reference is dropped by a handler; its subscription, found without an
    // owner at the next publish, is removed, and its handler's deinit publishes again.
    let bus = TopicBus()
    let seen = Recorder<String>()
    let box = PartyBox()
    box.party = Party()
    do {
      let onRelease = OnRelease { bus.publish(.count, 100) }
      bus.source(for: .count).subscribe(box.party!) { _, event in
        _ = onRelease
        seen.record("owned \(event.payload)")
      }
    }
    let dropper = bus.source(for: .count).subscribe { event in
      seen.record("dropper \(event.payload)")
      if event.payload == 1 { box.party = nil }
    }
    bus.publish(.count, 1)
    bus.publish(.count, 2)
    // The deinit's publish comes from code on no actor: it reaches the dropper after a hop.
    while seen.values.count < 4 { await Task.yield() }
    dropper.unsubscribe()
    #expect(seen.values.prefix(2) == ["owned 1", "dropper 1"])
    #expect(seen.values.dropFirst(2).sorted() == ["dropper 100", "dropper 2"])
  }

  // MARK: Main actor

  @Test @MainActor func unsubscribingAnOwnerFromATopicDropsItsQueuedMainActorEvents() async {
    let bus = TopicBus()
    let topic = Topic<String>("title")
    let owner = Party()
    let shown = Recorder<String>()
    bus.source(for: topic).subscribe(owner) { _, event in shown.record(event.payload) }
    onAnotherThread {
      for i in 0..<5 { bus.publish(topic, "\(i)") }
    }
    bus.unsubscribe(owner, from: topic)  // the five events still wait for the main actor
    await settle()
    #expect(shown.values.isEmpty)
  }

  @Test @MainActor func unsubscribeAllDropsTheOwnersQueuedMainActorEvents() async {
    let bus = TopicBus()
    let topic = Topic<String>("title")
    let other = Topic<String>("subtitle")
    let owner = Party()
    let keeper = Party()
    let shown = Recorder<String>()
    bus.source(for: topic).subscribe(owner) { _, event in
      shown.record("owner \(event.payload)")
    }
    bus.source(for: other).subscribe(owner) { _, event in
      shown.record("owner \(event.payload)")
    }
    bus.source(for: topic).subscribe(keeper) { _, event in
      shown.record("keeper \(event.payload)")
    }
    onAnotherThread {
      bus.publish(topic, "a")
      bus.publish(other, "b")
    }
    bus.unsubscribe(owner)
    #expect(await eventually { shown.values == ["keeper a"] })
    await settle()
    #expect(shown.values == ["keeper a"])
    bus.unsubscribe(keeper)
  }

  @Test @MainActor func aMainActorHandlerIsReleasedAtTheSweepThatFindsItsSenderGone() {
    // The subscription is kept, not unsubscribed: the bus alone must let go of the handler.
    let bus = TopicBus()
    let topic = Topic<String>("title")
    weak var weakCaptured: Parcel?
    let subscription: SendableSubscription
    do {
      let sender = Party()
      let captured = Parcel()
      weakCaptured = captured
      subscription = bus.source(for: topic, from: sender).subscribe { _ in _ = captured }
    }
    #expect(weakCaptured != nil)
    bus.publish(topic, "x")
    _ = bus.channelCount  // sweeps, as filing channels does once their number has doubled
    #expect(weakCaptured == nil)
    withExtendedLifetime(subscription) {}
  }

  @Test @MainActor func aMainActorOwnerSubscriptionMadeAfterAnUnsubscribeIsUntouchedByIt() {
    let bus = TopicBus()
    let topic = Topic<String>("title")
    let owner = Party()
    let shown = Recorder<String>()
    bus.source(for: topic).subscribe(owner) { _, event in shown.record("old \(event.payload)") }
    bus.unsubscribe(owner, from: topic)
    bus.source(for: topic).subscribe(owner) { _, event in shown.record("new \(event.payload)") }
    bus.publish(topic, "x")
    #expect(shown.values == ["new x"])
    bus.unsubscribe(owner)
  }

  // MARK: Memory

  /// A bus used with a new topic for every subscription must not grow: a topic whose last
  /// subscription ends, however it ends, leaves the bus's table.
  @Test(.enabled(if: !TestProcess.isSanitized, "sanitizers keep freed memory by design"))
  func manyOneOffTopicsLeaveMemoryFlat() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        let cycler = OneOffTopics()
        for cycle in 0..<20_000 { cycler.run(cycle) }
        let before = TestProcess.peakResidentBytes
        for cycle in 20_000..<220_000 { cycler.run(cycle) }
        print("growth: \(TestProcess.peakResidentBytes - before)")
      }
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    let growth = output.split(separator: " ").last.flatMap { Int($0.filter(\.isNumber)) }
    #expect(growth != nil, "the child printed \(output)")
    #expect(
      growth ?? 0 <= 4 << 20,
      "the peak resident size grew by \(growth ?? 0) bytes over 200,000 one-off topics")
  }
}

/// Runs a closure when it is deallocated.
private final class OnRelease: Sendable {
  private let action: @Sendable () -> Void

  init(_ action: @escaping @Sendable () -> Void) {
    self.action = action
  }

  deinit { action() }
}

/// Holds a party that a handler lets go of.
private final class PartyBox: @unchecked Sendable {
  // Written by the test and by a handler that runs on the test's thread.
  var party: Party?
}

/// One subscription to a topic of its own per cycle, ended in each of the ways a subscription
/// can end, in turn.
@MainActor private final class OneOffTopics {
  // `received` is written only by handlers, which run on the thread that calls `run`.
  let bus = TopicBus()
  var received = 0

  func run(_ cycle: Int) {
    let topic = Topic<Int>("a topic used once, number \(cycle)")
    switch cycle % 8 {
    case 0:
      bus.source(for: topic).subscribe { self.received &+= $0.payload }.unsubscribe()
    case 1:
      bus.source(for: topic).subscribe(limit: 1) { self.received &+= $0.payload }
      bus.publish(topic, cycle)
    case 2:
      // The owner goes at once; the next publish removes its subscription.
      bus.source(for: topic).subscribe(Party()) { _, event in self.received &+= event.payload }
      bus.publish(topic, cycle)
    case 3:
      // The sender goes at once too: the subscription ends as it is made.
      bus.source(for: topic, from: Party()).subscribe { self.received &+= $0.payload }
      bus.publish(topic, cycle)
    case 4:
      let owner = Party()
      bus.source(for: topic).subscribe(owner) { _, event in self.received &+= event.payload }
      bus.unsubscribe(owner, from: topic)
    case 5:
      let owner = Party()
      bus.source(for: topic).subscribe(owner, limit: 1) { _, event in
        self.received &+= event.payload
      }
      // `unsubscribeAll` visits every topic: were topics never dropped, calling it every time
      // would make this test quadratic rather than failing.
      if cycle % 1024 == 5 {
        bus.unsubscribe(owner)
      } else {
        bus.unsubscribe(owner, from: topic)
      }
    case 6:
      let owner = Party()
      bus.source(for: topic).subscribe(owner) { _, _ in }
      bus.unsubscribe(owner, from: topic)
    default:
      bus.source(for: topic).stream().subscribe { self.received &+= $0.payload }.unsubscribe()
    }
  }
}
