import IndefiniteObservable

/// One publication on a ``TopicBus``: the topic, who published it, and the payload.
public struct TopicEvent<Payload: Sendable>: Sendable {
  /// The topic the event was published on.
  public let topic: Topic<Payload>

  /// The object the publisher named as sender with `publish(_:_:from:)`, or nil.
  ///
  /// The event keeps it alive while the event itself exists; a bus keeps no event.
  public let sender: (any AnyObject & Sendable)?

  /// The published value.
  public let payload: Payload

  /// Creates an event; buses make these, tests and adapters may too.
  public init(topic: Topic<Payload>, sender: (any AnyObject & Sendable)?, payload: Payload) {
    self.topic = topic
    self.sender = sender
    self.payload = payload
  }
}
