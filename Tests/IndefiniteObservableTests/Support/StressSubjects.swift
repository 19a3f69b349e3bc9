import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Testing

/// A value sent in a stress test: who sent it, its place in that sender's sequence, and a
/// ticket drawn from a counter shared by every thread just before it was sent.
struct Stamp: Sendable, Equatable, CustomStringConvertible {
  let sender: Int
  let index: Int
  let ticket: Int

  var description: String { "\(sender).\(index)#\(ticket)" }
}

/// One way of subscribing to a stressed source, and of ending that subscription.
struct StressWay: Sendable, CustomStringConvertible {
  /// Says what the way is, in failure messages.
  let description: String
  /// Whether values reach the subscriber before `send` returns (no queue).
  let isSynchronous: Bool
  /// Subscribes `next`; returns what ends the subscription. `ended` must be called once the
  /// subscription is over for good: right after unsubscribing returned, or from the deinit of
  /// the owner it was bound to.
  let subscribe:
    @Sendable (
      _ next: @escaping @Sendable (Stamp) -> Void, _ ended: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void
}

/// A multicast source under stress, seen the same way whatever its type: how to send into it,
/// the ways to subscribe to it, and its counters. A new source type (a topic bus) joins the
/// stress tests by adding one `StressSubject` to ``StressSubject/all``.
struct StressSubject: Sendable, CustomTestStringConvertible {
  /// Names the source in test output.
  let name: String
  /// Makes a fresh source.
  let make: @Sendable () -> StressSource

  var testDescription: String { name }

  static let all: [StressSubject] = [.emitter, .currentValue, .subscriptionBag]
}

/// A fresh source made by a ``StressSubject``.
struct StressSource: Sendable {
  /// Sends a value; callable from any thread and from a subscriber.
  let send: @Sendable (Stamp) -> Void
  /// The value every new subscription receives first, if the source has one from the start.
  let initial: Stamp?
  /// The ways to subscribe; the first is a plain synchronous subscription.
  let ways: [StressWay]
  /// The number of values the source says it delivered.
  let sendCount: @Sendable () -> Int
  /// The number of subscriptions the source says it has.
  let subscriberCount: @Sendable () -> Int
  /// Waits until every value enqueued so far on the source's queues has been delivered.
  let drain: @Sendable () -> Void
}

/// An object that a subscription is bound to; reports its deallocation.
final class StressOwner: Sendable {
  private let onDeinit: @Sendable () -> Void
  init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
  deinit { onDeinit() }
}

/// Holds an object until `release()` is called, from any thread.
///
/// `@unchecked Sendable`: `object` is read and written only under `lock`.
final class Holder<Object: AnyObject>: @unchecked Sendable {
  private let lock = NSLock()
  private var object: Object?

  init(_ object: Object) { self.object = object }

  /// Lets go of the object; its deinit runs here unless someone else keeps it.
  func release() {
    let object = lock.withLock {
      defer { self.object = nil }
      return self.object
    }
    _ = object
  }

  var value: Object? { lock.withLock { object } }
}

/// Serial queues that stressed subscriptions are delivered on.
private func stressQueues() -> [DispatchQueue] {
  (0..<2).map { DispatchQueue(label: "stress \($0)") }
}

/// What ends a subscription by unsubscribing it, then reports that it ended.
private func unsubscribing(
  _ subscription: Subscription, _ ended: @escaping @Sendable () -> Void
) -> @Sendable () -> Void {
  {
    subscription.unsubscribe()
    ended()
  }
}

/// Makes a subscription bound to a new owner; what ends it lets the owner go, and the owner's
/// deinit reports that it ended.
private func bound(
  _ subscribe: (StressOwner) -> Subscription, _ ended: @escaping @Sendable () -> Void
) -> @Sendable () -> Void {
  let owner = Holder(StressOwner(onDeinit: ended))
  _ = subscribe(owner.value!)
  return owner.release
}

/// What ends a bag's subscriptions with `end`, then reports that they ended.
private func ending(
  _ bag: SubscriptionBag, by end: @escaping @Sendable (SubscriptionBag) -> Void,
  _ ended: @escaping @Sendable () -> Void
) -> @Sendable () -> Void {
  {
    end(bag)
    ended()
  }
}

extension StressSubject {
  /// An ``Emitter``, subscribed every way it offers.
  static let emitter = StressSubject(name: "Emitter") {
    let emitter = Emitter<Stamp>()
    emitter.maxSubscribers = .max
    let queues = stressQueues()
    let ways: [StressWay] = [
      StressWay(description: "plain", isSynchronous: true) { next, ended in
        unsubscribing(emitter.subscribe(next), ended)
      },
      StressWay(description: "replaying the last value", isSynchronous: true) { next, ended in
        unsubscribing(emitter.subscribe(replayingLast: true, next), ended)
      },
      StressWay(description: "limited", isSynchronous: true) { next, ended in
        unsubscribing(emitter.subscribe(limit: 1 << 40, next), ended)
      },
      StressWay(description: "bound to an owner, which goes", isSynchronous: true) {
        next, ended in
        bound({ owner in emitter.subscribe(owner) { _, stamp in next(stamp) } }, ended)
      },
      StressWay(description: "bound to an owner, unsubscribed by owner", isSynchronous: true) {
        next, ended in
        let owner = StressOwner {}
        emitter.subscribe(owner, replayingLast: true) { _, stamp in next(stamp) }
        return {
          emitter.unsubscribe(owner)
          ended()
        }
      },
      StressWay(description: "on a queue", isSynchronous: false) { next, ended in
        unsubscribing(emitter.subscribe(on: queues[0], replayingLast: true, next), ended)
      },
      StressWay(description: "bound to an owner on a queue", isSynchronous: false) {
        next, ended in
        bound(
          { owner in emitter.subscribe(owner, on: queues[1]) { _, stamp in next(stamp) } }, ended)
      },
    ]
    return StressSource(
      send: emitter.send, initial: nil, ways: ways, sendCount: { emitter.sendCount },
      subscriberCount: { emitter.subscriberCount }, drain: { for queue in queues { queue.sync {} } }
    )
  }

  /// A ``CurrentValue``, subscribed every way it offers: by default every subscription starts
  /// with the current value.
  static let currentValue = StressSubject(name: "CurrentValue") {
    let initial = Stamp(sender: -1, index: 0, ticket: 0)
    let holder = CurrentValue(initial)
    holder.maxSubscribers = .max
    let queues = stressQueues()
    let ways: [StressWay] = [
      StressWay(description: "plain", isSynchronous: true) { next, ended in
        unsubscribing(holder.subscribe(next), ended)
      },
      StressWay(description: "new values only", isSynchronous: true) { next, ended in
        unsubscribing(holder.subscribe(replayingLast: false, next), ended)
      },
      StressWay(description: "limited", isSynchronous: true) { next, ended in
        unsubscribing(holder.subscribe(limit: 1 << 40, next), ended)
      },
      StressWay(description: "bound to an owner, which goes", isSynchronous: true) {
        next, ended in
        bound({ owner in holder.subscribe(owner) { _, stamp in next(stamp) } }, ended)
      },
      StressWay(description: "bound to an owner, unsubscribed by owner", isSynchronous: true) {
        next, ended in
        let owner = StressOwner {}
        holder.subscribe(owner) { _, stamp in next(stamp) }
        return {
          holder.unsubscribe(owner)
          ended()
        }
      },
      StressWay(description: "on a queue", isSynchronous: false) { next, ended in
        unsubscribing(holder.subscribe(on: queues[0], next), ended)
      },
      StressWay(description: "bound to an owner on a queue", isSynchronous: false) {
        next, ended in
        bound(
          { owner in holder.subscribe(owner, on: queues[1]) { _, stamp in next(stamp) } }, ended)
      },
    ]
    return StressSource(
      send: { holder.value = $0 }, initial: initial, ways: ways,
      sendCount: { holder.sendCount }, subscriberCount: { holder.subscriberCount },
      drain: { for queue in queues { queue.sync {} } })
  }

  /// An ``Emitter`` subscribed through ``SubscriptionBag``s: bags of one subscription ended
  /// every way a bag ends them (deallocation included), and one bag that every thread shares.
  static let subscriptionBag = StressSubject(name: "SubscriptionBag") {
    let emitter = Emitter<Stamp>()
    emitter.maxSubscribers = .max
    // An operator's observable holds only its immutable connect closure, which captures the
    // emitter: safe to subscribe to from any thread.
    nonisolated(unsafe) let mapped = emitter.map { $0 }
    let shared = SubscriptionBag()
    let queues = stressQueues()
    let ways: [StressWay] = [
      StressWay(description: "through a bag, unsubscribed from the source", isSynchronous: true) {
        next, ended in
        let bag = SubscriptionBag()
        bag.subscribe(to: emitter, next)
        return ending(bag, by: { $0.unsubscribe(from: emitter) }, ended)
      },
      StressWay(description: "stored in a bag, which goes", isSynchronous: true) { next, ended in
        let bag = Holder(SubscriptionBag())
        emitter.subscribe(next).store(in: bag.value!)
        return {
          bag.release()
          ended()
        }
      },
      StressWay(description: "through a bag to an operator, all unsubscribed", isSynchronous: true)
      {
        next, ended in
        let bag = SubscriptionBag()
        bag.subscribe(to: mapped, next)
        return ending(bag, by: { $0.unsubscribeAll() }, ended)
      },
      StressWay(
        description: "through a bag, about an object, unsubscribed from the object",
        isSynchronous: true
      ) { next, ended in
        let bag = SubscriptionBag()
        let object = StressOwner {}
        bag.subscribe(to: mapped, about: object, next)
        return ending(bag, by: { $0.unsubscribe(from: object) }, ended)
      },
      StressWay(description: "through a shared bag, unsubscribed alone", isSynchronous: true) {
        next, ended in
        unsubscribing(shared.subscribe(to: emitter, next), ended)
      },
      StressWay(description: "through a bag with a queue, which goes", isSynchronous: false) {
        next, ended in
        let bag = Holder(SubscriptionBag(queue: queues[0]))
        bag.value!.subscribe(to: emitter, next)
        return {
          bag.release()
          ended()
        }
      },
      StressWay(description: "through a bag with a queue, unsubscribed alone", isSynchronous: false)
      {
        next, ended in
        let bag = SubscriptionBag(queue: queues[1])
        let subscription = bag.subscribe(to: emitter, next)
        return {
          subscription.unsubscribe()
          ended()
          _ = bag
        }
      },
    ]
    return StressSource(
      send: emitter.send, initial: nil, ways: ways, sendCount: { emitter.sendCount },
      subscriberCount: { emitter.subscriberCount },
      drain: { for queue in queues { queue.sync {} } })
  }
}
