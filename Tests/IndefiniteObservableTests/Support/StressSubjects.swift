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

  static let all: [StressSubject] = [.sendableEmitter]
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
  _ subscription: SendableSubscription, _ ended: @escaping @Sendable () -> Void
) -> @Sendable () -> Void {
  {
    subscription.unsubscribe()
    ended()
  }
}

/// Makes a subscription bound to a new owner; what ends it lets the owner go, and the owner's
/// deinit reports that it ended.
private func bound(
  _ subscribe: (StressOwner) -> SendableSubscription, _ ended: @escaping @Sendable () -> Void
) -> @Sendable () -> Void {
  let owner = Holder(StressOwner(onDeinit: ended))
  _ = subscribe(owner.value!)
  return owner.release
}

extension StressSubject {
  /// A ``SendableEmitter``, the source that many threads may send into, with the subscriptions
  /// that code on no actor can make: on the sending thread and on a queue, plain and bound to an
  /// owner. (``Emitter`` and
  /// ``CurrentValue`` are not `Sendable`: the compiler keeps them to one isolation, so they are
  /// not stressed from many threads.)
  static let sendableEmitter = StressSubject(name: "SendableEmitter") {
    let emitter = SendableEmitter<Stamp>()
    emitter.maxSubscribers = .max
    let queues = stressQueues()
    let ways: [StressWay] = [
      StressWay(description: "on the sending thread", isSynchronous: true) { next, ended in
        unsubscribing(emitter.subscribe(on: .sendingThread, next), ended)
      },
      StressWay(description: "on the sending thread, replaying", isSynchronous: true) {
        next, ended in
        unsubscribing(emitter.subscribe(on: .sendingThread, replayingLast: true, next), ended)
      },
      StressWay(
        description: "bound to an owner, which goes, on the sending thread",
        isSynchronous: true
      ) { next, ended in
        bound(
          { owner in emitter.subscribe(owner, on: .sendingThread) { _, stamp in next(stamp) } },
          ended)
      },
      StressWay(description: "on a queue", isSynchronous: false) { next, ended in
        unsubscribing(emitter.subscribe(on: queues[0], replayingLast: true, next), ended)
      },
      StressWay(description: "on a queue, limited", isSynchronous: false) { next, ended in
        unsubscribing(emitter.subscribe(on: queues[0], limit: 1000, next), ended)
      },
      StressWay(description: "bound to an owner on a queue", isSynchronous: false) {
        next, ended in
        bound(
          { owner in emitter.subscribe(owner, on: queues[1]) { _, stamp in next(stamp) } }, ended)
      },
    ]
    return StressSource(
      send: { emitter.send($0) }, initial: nil, ways: ways, sendCount: { emitter.sendCount },
      subscriberCount: { emitter.subscriberCount }, drain: { for queue in queues { queue.sync {} } }
    )
  }
}
