import IndefiniteObservable

/// What a topic's emitter carries: an event, or word that an owner's subscriptions end.
@usableFromInline
enum TopicMessage<Payload: Sendable>: Sendable {
  /// An event published on the topic, and whether its publisher was isolated to the main actor
  /// (so that main-actor subscribers may be called at once).
  case event(TopicEvent<Payload>, onMainActor: Bool)
  /// `unsubscribe(_:from:)` or `unsubscribeAll(_:)` of this owner: its main-actor subscriptions,
  /// which are not bound to it in the emitter, end themselves and drop their queued events.
  case ownerEnded(ObjectIdentifier)
}

/// A topic's channel, whatever its payload type, as a ``TopicBus``'s table holds it.
@usableFromInline
protocol AnyTopicChannel: AnyObject, Sendable {
  /// Ends every subscription of `owner` to this topic: no call of their handlers begins after
  /// this returns, and their queued main-actor events are dropped.
  func endSubscriptions(of owner: AnyObject)
}

/// The subscribers of one topic of a ``TopicBus``: an ``Emitter``, used through its public API
/// like any other.
///
/// Each subscription of the topic is one subscription of the emitter. The emitter keeps no last
/// value, so it keeps no event (nor the sender an event holds) after a publish returns; it has
/// no subscriber limit, since a topic may legitimately have many.
@usableFromInline
final class TopicChannel<Payload: Sendable>: AnyTopicChannel {
  /// The emitter whose subscribers are the topic's.
  @usableFromInline let emitter: Emitter<TopicMessage<Payload>>

  /// A channel with no subscribers.
  init() {
    emitter = Emitter(keepsLastValue: false)
    emitter.maxSubscribers = .max
  }

  @usableFromInline
  func endSubscriptions(of owner: AnyObject) {
    // Synchronous subscriptions are bound to their owner in the emitter.
    emitter.unsubscribe(owner)
    // Main-actor ones are not (see `TopicBus.addOnMainActor`): they hear it and end themselves.
    emitter.send(.ownerEnded(ObjectIdentifier(owner)))
  }
}
