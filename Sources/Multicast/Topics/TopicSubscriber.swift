import IndefiniteObservable

/// One subscription filed in a ``TopicBus``.
///
/// The bus keeps the subscribers of every topic in one table, so the table holds this untyped
/// base; publishing on a `Topic<P>` downcasts to `TypedTopicSubscriber<P>`, which the table's
/// key (name and payload type) guarantees.
///
/// `@unchecked Sendable`: `sender` and `owner` are weak references assigned only in `init` (weak
/// loads are thread-safe); the subclass's `deliver` is read and cleared only under the bus's
/// lock.
class TopicSubscriber: @unchecked Sendable {
  let key: TopicKey
  let once: Bool
  let filtersSender: Bool
  private(set) weak var sender: (any AnyObject & Sendable)?
  let hasOwner: Bool
  private(set) weak var owner: (any AnyObject & Sendable)?

  init(
    key: TopicKey, sender: (any AnyObject & Sendable)?, owner: (any AnyObject & Sendable)?,
    once: Bool
  ) {
    self.key = key
    self.once = once
    self.filtersSender = sender != nil
    self.sender = sender
    self.hasOwner = owner != nil
    self.owner = owner
  }

  /// Whether the sender filter or the owner is gone, so that no event can reach this subscriber
  /// again.
  var isOrphaned: Bool {
    (filtersSender && sender == nil) || (hasOwner && owner == nil)
  }

  /// Whether an event published by `eventSender` passes the sender filter.
  @inline(__always)
  func accepts(sender eventSender: AnyObject?) -> Bool {
    guard filtersSender else { return true }
    guard let sender else { return false }  // the filtered sender is gone: nothing matches
    return sender === eventSender
  }

  /// Drops the handler; called under the bus's lock. The caller releases the result, and calls
  /// ``didDetach()``, after unlocking.
  func detach() -> Any? { nil }

  /// Finishes a detach outside the lock: stops a main-actor delivery, dropping its queue.
  func didDetach() {}
}

/// A subscriber of a `Topic<Payload>`: how to deliver one event to it.
///
/// `@unchecked Sendable`: `deliver` is read and cleared only under the bus's lock;
/// `mainActorDelivery` is immutable and thread-safe.
final class TypedTopicSubscriber<Payload: Sendable>: TopicSubscriber, @unchecked Sendable {
  /// Delivers an event: receives the live owner (nil without one), the event, and whether the
  /// publisher is isolated to the main actor.
  typealias Deliver = (AnyObject?, TopicEvent<Payload>, Bool) -> Void

  /// Nil once detached. Guarded by the bus's lock.
  var deliver: Deliver?
  private let mainActorDelivery: MainActorDelivery<TopicEvent<Payload>>?

  init(
    topic: Topic<Payload>, sender: (any AnyObject & Sendable)?,
    owner: (any AnyObject & Sendable)?, once: Bool,
    mainActorDelivery: MainActorDelivery<TopicEvent<Payload>>? = nil,
    deliver: @escaping Deliver
  ) {
    self.deliver = deliver
    self.mainActorDelivery = mainActorDelivery
    super.init(key: topic.key, sender: sender, owner: owner, once: once)
  }

  override func detach() -> Any? {
    defer { deliver = nil }
    return deliver
  }

  override func didDetach() {
    mainActorDelivery?.cancel()
  }
}
