import IndefiniteObservable

/// A topic's channel, whatever its payload type, as a ``TopicBus``'s table holds it.
@usableFromInline
protocol AnyTopicChannel: AnyObject, Sendable {
  /// Ends every subscription of `owner` to this topic: no call of their handlers begins after
  /// this returns, and their events waiting for a hop are dropped.
  func endSubscriptions(of owner: AnyObject)
}

/// The subscribers of one topic of a ``TopicBus``: a ``SendableEmitter``, used through its public
/// API like any other.
///
/// Each subscription of the topic is one subscription of the emitter. The emitter keeps no last
/// value, so it keeps no event (nor the sender an event holds) after a publish returns.
@usableFromInline
final class TopicChannel<Payload: Sendable>: AnyTopicChannel {
  /// The emitter whose subscribers are the topic's.
  @usableFromInline let emitter = SendableEmitter<TopicEvent<Payload>>(keepingLast: 0)

  /// A channel with no subscribers; a topic may legitimately have many.
  init() {
    emitter.maxSubscribers = .max
  }

  @usableFromInline
  func endSubscriptions(of owner: AnyObject) {
    emitter.unsubscribe(owner)
  }
}
