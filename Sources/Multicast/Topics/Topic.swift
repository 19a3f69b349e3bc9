import IndefiniteObservable

/// A named channel of a ``TopicBus`` that carries payloads of one type.
///
/// Declare topics once and publish and subscribe by them; the payload type is checked by the
/// compiler at both ends:
///
/// ```swift
/// struct Login: Sendable { var user: String }
///
/// extension Topic where Payload == Login {
///   static var loggedIn: Topic { Topic("loggedIn") }
/// }
///
/// bus.publish(.loggedIn, Login(user: "ada"))
/// ```
///
/// A topic is its name *and* its payload type: `Topic<Int>("count")` and
/// `Topic<String>("count")` are two different topics, and a subscriber of one never receives the
/// other's events. Any string is a valid name.
public struct Topic<Payload: Sendable>: Hashable, Sendable, CustomStringConvertible {
  /// The topic's name, as given.
  public let name: String

  /// Creates the topic called `name` for payloads of type `Payload`.
  public init(_ name: String) {
    self.name = name
  }

  /// The topic's name and payload type, for example `loggedIn (Login)`.
  public var description: String {
    "\(name) (\(Payload.self))"
  }

  /// The key under which a bus files this topic's subscribers.
  @inlinable var key: TopicKey {
    TopicKey(name: name, payload: ObjectIdentifier(Payload.self))
  }
}

/// A topic's identity in a bus: its name and its payload type.
@usableFromInline
struct TopicKey: Hashable, Sendable {
  @usableFromInline let name: String
  @usableFromInline let payload: ObjectIdentifier

  @inlinable init(name: String, payload: ObjectIdentifier) {
    self.name = name
    self.payload = payload
  }
}
