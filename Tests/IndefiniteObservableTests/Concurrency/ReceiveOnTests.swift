import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A main-actor object that a binding updates.
@MainActor private final class Label {
  var texts: [String] = []
}

/// A `Sendable` owner for queue bindings.
private final class Sink: Sendable {
  let received = LockedState<[Int]>([])
}

@MainActor @Suite(.checksLiveResources) struct ReceiveOnTests {
  @Test func aQueueSubscriberRunsOnTheQueueInTheOrderSentAfterTheSendReturns() async {
    let queue = DispatchQueue(label: "receive-on")
    let source = Emitter<Int>()
    let received = LockedState<[Int]>([])
    let subscription = source.map { $0 * 10 }.receive(on: queue).subscribe { value in
      dispatchPrecondition(condition: .onQueue(queue))
      received.withLock { $0.append(value) }
    }
    let sentWhileTheQueueWaited = LockedState(false)
    queue.sync {
      // The queue is busy: nothing can be delivered until this block ends.
      for value in 1...100 { source.send(value) }
      sentWhileTheQueueWaited.withLock { $0 = received.withLock { $0.isEmpty } }
    }
    queue.sync {}
    #expect(sentWhileTheQueueWaited.withLock { $0 })
    #expect(received.withLock { $0 } == (1...100).map { $0 * 10 })
    subscription.unsubscribe()
  }

  @Test func unsubscribingDropsTheValuesWaitingForTheQueueAndReleasesTheClosure() async {
    let queue = DispatchQueue(label: "receive-on")
    let source = Emitter<Int>()
    let received = LockedState<[Int]>([])
    weak var released: Sink?
    var subscription: Subscription?
    do {
      let sink = Sink()
      released = sink
      subscription = source.receive(on: queue).subscribe { value in
        sink.received.withLock { $0.append(value) }
        received.withLock { $0.append(value) }
      }
    }
    queue.sync {
      source.send(1)
      source.send(2)
      subscription?.unsubscribe()
    }
    queue.sync {}
    #expect(received.withLock { $0 }.isEmpty)
    #expect(source.subscriberCount == 0)
    #expect(released == nil)
  }

  @Test func aQueueSubscriberBoundToAnOwnerGetsItAndStopsWhenItIsGone() async {
    let queue = DispatchQueue(label: "receive-on")
    let source = Emitter<Int>()
    var sink: Sink? = Sink()
    let seen = sink!.received
    let subscription = source.receive(on: queue).subscribe(sink!) { owner, value in
      owner.received.withLock { $0.append(value) }
    }
    source.send(1)
    queue.sync {}
    sink = nil
    source.send(2)  // finds the owner gone on the queue: the subscription closes
    queue.sync {}
    #expect(source.subscriberCount == 1)
    source.send(3)  // ends the upstream subscription, as a source's owner-bound one ends
    queue.sync {}
    #expect(seen.withLock { $0 } == [1])
    #expect(source.subscriberCount == 0)
    subscription.unsubscribe()
  }

  @Test func aMainActorSubscriberBoundToAnOwnerEndsWhenItIsGone() async {
    final class Model: Sendable {}
    let source = Emitter<Int>()
    var model: Model? = Model()
    var seen: [Int] = []
    let subscription = source.receive(on: MainActor.shared).subscribe(model!) { _, value in
      seen.append(value)
    }
    source.send(1)
    #expect(await eventually { seen == [1] })
    model = nil
    source.send(2)
    await Task.yield()
    #expect(
      await eventually {
        source.send(3); return source.subscriberCount == 0
      })
    #expect(seen == [1])
    subscription.unsubscribe()
  }

  @Test func aMainActorSubscriberRunsOnTheMainActorInOrderEvenForValuesSentThere() async {
    let source = Emitter<Int>()
    let label = Label()
    let subscription = source.receive(on: MainActor.shared).subscribe { value in
      MainActor.assertIsolated()
      label.texts.append("\(value)")
    }
    for value in 1...5 { source.send(value) }
    #expect(label.texts.isEmpty)  // each value hops, as Combine's receive(on:) does
    #expect(await eventually { label.texts.count == 5 })
    #expect(label.texts == ["1", "2", "3", "4", "5"])
    subscription.unsubscribe()
  }

  @Test func valuesOfAStreamOnAnotherActorArriveOnTheMainActor() async {
    let label = Label()
    let feeder = Feeder()
    await feeder.bind(label)
    await feeder.send(1...3)
    #expect(await eventually { label.texts == ["1", "2", "3"] })
    await feeder.end()
  }

  @Test func aMainActorOwnerBindsInOneLineAndIsHeldWeakly() async {
    let source = Emitter<Int>()
    var label: Label? = Label()
    weak let released = label
    let subscription = source.receive(on: MainActor.shared).subscribe(label!) { label, value in
      label.texts.append("\(value)")
    }
    source.send(1)
    #expect(await eventually { label?.texts == ["1"] })
    label = nil
    #expect(released == nil)
    source.send(2)
    await Task.yield()
    subscription.unsubscribe()
  }

  @Test func unsubscribingDropsTheValuesWaitingForTheMainActor() async {
    let source = Emitter<Int>()
    let label = Label()
    let subscription = source.receive(on: MainActor.shared).subscribe {
      label.texts.append("\($0)")
    }
    source.send(1)
    subscription.unsubscribe()
    for _ in 0..<10 { await Task.yield() }
    try? await Task.sleep(for: .milliseconds(10))
    #expect(label.texts.isEmpty)
    #expect(source.subscriberCount == 0)
  }
}

/// An actor whose own stream is delivered to the main actor.
private actor Feeder {
  let source = Emitter<Int>()
  // The subscription of the feeder's own emitter stays with the feeder, which ends it: the
  // compiler refuses to return it to the main actor (`Subscription` is not `Sendable`).
  var subscription: Subscription?

  func bind(_ label: Label) {
    subscription = source.receive(on: MainActor.shared).subscribe { value in
      MainActor.assertIsolated()
      label.texts.append("\(value)")
    }
  }

  func send(_ values: ClosedRange<Int>) {
    for value in values { source.send(value) }
  }

  func end() {
    subscription?.unsubscribe()
  }
}
