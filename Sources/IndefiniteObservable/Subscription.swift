/// The connection between one observer and its stream, returned by `subscribe`.
///
/// ``unsubscribe()`` calls the stream's disconnect exactly once, however often it is called,
/// then releases the disconnect chain (and with it everything the chain kept alive, such as
/// upstream observables of an operator chain).
///
/// Dropping a subscription does **not** unsubscribe: subscriptions are attach-and-forget. A
/// stream stays connected until ``unsubscribe()`` is called or its source lets go of the
/// observer. Keep the subscription (for example in an array) if you will want to stop.
///
/// - Threading: not `Sendable`, because its disconnect is any closure, and may touch state that
///   belongs to the isolation that subscribed (the callback list of a main-actor object, say).
///   The compiler keeps it there: a subscription can reach another thread only where region
///   isolation proves that nothing else there refers to what it holds (`sending`). A source
///   whose disconnect is safe from any thread returns a ``SendableSubscription`` instead, which
///   any thread may end; `Subscription(_:)` turns one into this type, for a list of both.
///   A disconnect may itself call `unsubscribe()`: it returns at once.
public final class Subscription {
  /// What ends the stream: nil once ``unsubscribe()`` has taken it.
  private var disconnect: Disconnect?
  /// The sendable subscription this one forwards to, if made from one, so that
  /// ``isUnsubscribed`` also sees it ended elsewhere.
  private let forwarded: SendableSubscription?

  /// Creates a subscription that will call `disconnect` on the first ``unsubscribe()``.
  public init(_ disconnect: @escaping () -> Void) {
    self.disconnect = disconnect
    forwarded = nil
    LiveResources.opened(.subscriptions)
  }

  /// Creates a subscription that ends `subscription`: for keeping sendable and single-isolation
  /// subscriptions in one list, or in one ``Subscription``-typed property. It is ended when
  /// either is: ``isUnsubscribed`` reads `subscription`'s state too.
  public init(_ subscription: SendableSubscription) {
    disconnect = subscription.unsubscribe
    forwarded = subscription
    LiveResources.opened(.subscriptions)
  }

  deinit { LiveResources.closed(.subscriptions) }

  /// Disconnects the stream: the first call runs disconnect; later calls do nothing.
  ///
  /// When the stream's source honours its disconnect synchronously, as every source in this
  /// package does, no value reaches the observer after this method returns.
  public func unsubscribe() {
    // `if let` moves the closure out, so a disconnect that calls `unsubscribe()` finds none.
    if let disconnect = disconnect.take() { disconnect() }
  }

  /// Whether ``unsubscribe()`` has been called (or, for one made from a
  /// ``SendableSubscription``, whether that one has ended).
  public var isUnsubscribed: Bool {
    disconnect == nil || forwarded?.isUnsubscribed == true
  }
}

extension Subscription: Hashable {
  /// Whether `lhs` and `rhs` are the same subscription object: subscriptions are compared by
  /// identity, never by their stream or state.
  public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
    lhs === rhs
  }

  /// Hashes the subscription's identity, so that a `Set<Subscription>` holds each subscription
  /// once.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }

  /// Refused: a `Set<Subscription>` does not end its subscriptions when it is released, as
  /// Combine's `Set<AnyCancellable>` does, so Combine's habit would compile and leave them
  /// running. The compiler's message names what to use instead.
  ///
  /// Keep the subscriptions in a `SubscriptionBag` (module `Multicast`), which ends them when it
  /// is deallocated, with the object that holds it:
  ///
  /// ```swift
  /// let bag = SubscriptionBag()  // `var cancellables = Set<AnyCancellable>()`
  /// numbers.subscribe { print($0) }.store(in: bag)  // `.store(in: &cancellables)`
  /// ```
  ///
  /// A `Set<Subscription>` filled with `insert(_:)` is still a set of subscriptions that you end
  /// yourself (`subscriptions.forEach { $0.unsubscribe() }`): dropping a subscription never
  /// ends it, as in 4.0.
  @available(
    *, unavailable,
    message: """
      a Set<Subscription> does not unsubscribe when it is released; keep a SubscriptionBag \
      (import Multicast; 'let bag = SubscriptionBag()', then '.store(in: bag)'), which \
      unsubscribes when it is deallocated
      """
  )
  public func store(in set: inout Set<Subscription>) {
    set.insert(self)
  }
}
