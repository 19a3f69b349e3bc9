import Dispatch
import IndefiniteObservable
import Multicast
import Synchronization
import TestSupport
import Testing

/// `on:` takes a `DeliveryTarget`, a queue or the sending thread, in one spelling per form
/// (issue 31: the queue and sending-thread forms were written twice, on the front and on the
/// topic bus). The implicit members read as they did with a concrete `DispatchQueue`.
@MainActor
@Suite struct DeliveryTargetTests {
  final class Counter: Sendable {
    let count = Mutex(0)
  }

  /// The names of the queues that delivered. A class: a `Mutex` captured as a local by closures
  /// that run on four queues at once is a Swift access race (ThreadSanitizer reports the
  /// captured variable's accesses as modifying).
  final class Seen: Sendable {
    let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
  }

  @Test func everyQueueSpellingStillResolvesAndDelivers() async {
    let source = SendableEmitter<Int>()
    let seen = Seen()
    let queue = DispatchQueue(label: "DeliveryTargetTests")
    let subscriptions = [
      source.subscribe(on: queue) { _ in seen.append("queue") },
      source.subscribe(on: .main) { _ in seen.append("main") },
      source.subscribe(on: .global()) { _ in seen.append("global") },
      source.subscribe(on: .global(qos: .utility)) { _ in seen.append("utility") },
    ]
    source.send(1)
    #expect(await eventually { seen.names.withLock { $0.count } == 4 })
    #expect(seen.names.withLock { Set($0) } == ["queue", "main", "global", "utility"])
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func anEmitterTakesTheSendingThreadAsItsPlainSubscribeRuns() {
    let source = Emitter<Int>()
    let counter = Counter()
    let plain = source.subscribe(on: .sendingThread) { value in
      counter.count.withLock { $0 += value }
    }
    let bound = source.subscribe(counter, on: .sendingThread) { counter, value in
      counter.count.withLock { $0 += value * 10 }
    }
    source.send(1)
    #expect(counter.count.withLock { $0 } == 11)  // both ran before send returned
    plain.unsubscribe()
    bound.unsubscribe()
  }

  @Test func aTopicBusTakesAQueueOrTheSendingThreadInOneSpelling() async {
    let bus = TopicBus()
    let topic = Topic<Int>("DeliveryTargetTests")
    let counter = Counter()
    let onThread = bus.subscribe(to: topic, on: .sendingThread) { event in
      counter.count.withLock { $0 += event.payload }
    }
    let onQueue = bus.subscribe(counter, to: topic, on: DispatchQueue.global()) { counter, event in
      counter.count.withLock { $0 += event.payload * 10 }
    }
    bus.publish(topic, 1)
    // The sending-thread subscriber ran before publish returned.
    #expect(counter.count.withLock { $0 } % 10 == 1)
    #expect(await eventually { counter.count.withLock { $0 } == 11 })
    onThread.unsubscribe()
    onQueue.unsubscribe()
  }
}
