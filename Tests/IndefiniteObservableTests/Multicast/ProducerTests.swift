import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A producer of the numbers its test sends, from any thread, to every subscription at once; it
/// records what its connect closures saw.
private final class Numbers: Sendable {
  struct Connection {
    let gate: ObserverGate<Int>
    let gateActorWasMain: Bool
    let gateHadNoActor: Bool
  }
  let connections = LockedState<[Connection]>([])
  let closedBeforeRelease = LockedState<[Bool]>([])

  var producer: Producer<Int> {
    Producer { gate in
      let actor = gate.actor
      self.connections.withLock {
        $0.append(
          Connection(
            gate: gate, gateActorWasMain: actor === MainActor.shared, gateHadNoActor: actor == nil))
      }
      return { self.closedBeforeRelease.withLock { $0.append(gate.isClosed) } }
    }
  }

  /// Sends `value` into every gate connected so far, from the calling thread.
  func send(_ value: Int) {
    for connection in connections.withLock({ $0 }) { connection.gate.sendFromCurrentThread(value) }
  }
}

/// Subscribes on the sending thread from code on no actor: the spelling such code has.
private nonisolated func subscribeOnNoActor(
  _ producer: Producer<Int>, _ recorder: Recorder<Int>
) -> SendableSubscription {
  producer.subscribe(on: .sendingThread) { recorder.record($0) }
}

@MainActor @Suite(.checksLiveResources) struct ProducerTests {
  @Test func eachSubscriptionConnectsOnceAndEndingClosesTheGateBeforeTheRelease() {
    let numbers = Numbers()
    let producer = numbers.producer
    var first: [Int] = []
    var second: [Int] = []
    let a = producer.subscribe { first.append($0) }
    let b = producer.stream().subscribe { second.append($0) }
    #expect(numbers.connections.withLock { $0.count } == 2)
    numbers.send(1)
    a.unsubscribe()
    numbers.send(2)
    b.unsubscribe()
    numbers.send(3)
    #expect(first == [1])
    #expect(second == [1, 2])
    #expect(numbers.closedBeforeRelease.withLock { $0 } == [true, true])
  }

  @Test func anActorSubscriberRunsOnItsActorAndTheGateSaysWhich() async {
    let numbers = Numbers()
    var received: [Int] = []  // main-actor state: the compiler checks where the subscriber runs
    let subscription = numbers.producer.subscribe { value in received.append(value) }
    #expect(numbers.connections.withLock { $0.map(\.gateActorWasMain) } == [true])
    await Task.detached { numbers.send(7) }.value  // from another thread: hops
    while received.isEmpty { await Task.yield() }
    numbers.send(8)  // from the main actor: delivered before send returns
    #expect(received == [7, 8])
    subscription.unsubscribe()
  }

  @Test func codeOnNoActorSubscribesOnTheSendingThread() async {
    let numbers = Numbers()
    let recorder = Recorder<Int>()
    let subscription = subscribeOnNoActor(numbers.producer, recorder)
    #expect(numbers.connections.withLock { $0.map(\.gateHadNoActor) } == [true])
    let sender = Thread { numbers.send(5) }
    sender.start()
    #expect(recorder.wait(forCount: 1))
    #expect(recorder.values == [5])
    subscription.unsubscribe()
    numbers.send(6)
    #expect(recorder.values == [5])
  }

  @Test func theStreamTakesTheOperatorsOnTheCallersActor() {
    let numbers = Numbers()
    var labels: [String] = []
    let subscription = numbers.producer.stream().filter { $0 > 1 }.map { "#\($0)" }
      .subscribe { labels.append($0) }
    for value in 1...3 { numbers.send(value) }
    #expect(labels == ["#2", "#3"])
    subscription.unsubscribe()
  }

  @Test func aSubscriberMayUnsubscribeItselfInItsDelivery() {
    let numbers = Numbers()
    var received: [Int] = []
    var subscription: SendableSubscription?
    subscription = numbers.producer.subscribe { value in
      received.append(value)
      subscription?.unsubscribe()
    }
    numbers.send(1)
    numbers.send(2)
    #expect(received == [1])
    #expect(numbers.closedBeforeRelease.withLock { $0 } == [true])
  }
}
