import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `on:` takes a `DeliveryTarget`, a queue or the sending thread, in one spelling per form
/// (issue 31: the queue and sending-thread forms were written twice, on the front and on the
/// topic bus). The implicit members read as they did with a concrete `DispatchQueue`.
@MainActor
@Suite struct DeliveryTargetTests {
  /// In a `LockedState`, not a `Mutex`: ThreadSanitizer cannot see Synchronization's `Mutex` on
  /// Linux (CONTRIBUTING.md), and reports its guarded accesses from two queues as a race.
  final class Counter: Sendable {
    let count = LockedState(0)
  }

  /// The names of the queues that delivered, in a `LockedState` (see `Counter`; clean-clone CI's
  /// ThreadSanitizer step reported the appends of two queues at once to a `Mutex`'s array).
  final class Seen: Sendable {
    let names = LockedState<[String]>([])
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
    let onThread = bus.source(for: topic).subscribe(on: .sendingThread) { event in
      counter.count.withLock { $0 += event.payload }
    }
    let onQueue = bus.source(for: topic).subscribe(counter, on: DispatchQueue.global()) {
      counter, event in
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
