import Dispatch
import IndefiniteObservable

/// A bus on which code publishes and subscribes by topic, without knowing each other.
///
/// ```swift
/// let bus = TopicBus()
/// let subscription = bus.subscribe(to: .loggedIn) { event in
///   print("welcome, \(event.payload.user)")
/// }
/// bus.publish(.loggedIn, Login(user: "ada"))
/// subscription.unsubscribe()
/// ```
///
/// - Topics are typed: a ``Topic`` carries its payload type, and an event (``TopicEvent``)
///   carries the topic, the optional sender and the payload.
/// - Subscriptions can filter by sender (`from:`), take only the next event (`once: true`), and
///   belong to an *owner*: `unsubscribe(_:from:)` and `unsubscribe(_:)` end an owner's
///   subscriptions to one topic or to all of them. Every subscribe also returns a
///   `Subscription`.
/// - Streams: ``events(_:from:isolation:)`` is a `ValueObservable` of a topic's events for the
///   caller's actor, so operators work on topics.
///
/// - Threading: publish, subscribe and unsubscribe from any thread, concurrently. A handler runs
///   where it was written: `subscribe(to:)` and `subscribe(owner, to:)` bind it to the caller's
///   actor (the main actor in UI code and top-level code), where it runs at once for an event
///   published from that actor and after a hop otherwise, in the order published from each
///   thread; `subscribe(to:on: queue)` runs a `@Sendable` handler on a queue. Handlers run with
///   no lock held, so they may publish, subscribe and unsubscribe themselves. A subscriber added
///   during a publish does not receive that publish. Once any unsubscribe returns, no new call of
///   the handlers it removed begins (a call already running on another thread may finish).
/// - Lifetime: the bus keeps each handler until its subscription ends, and keeps owners and
///   senders named in a filter weakly: when an owner (or a filtered sender) is deallocated, its
///   subscriptions receive nothing more and are removed at the next publish on their topic. A
///   `Subscription` does not keep the bus alive. Owner handlers receive the owner as an
///   argument, so they need not capture it. The bus keeps no event: an event, and the sender it
///   names, are released when the publish returns (or, for a handler that it reaches after a hop,
///   once it has been delivered). A topic whose last subscription has ended and been released leaves the
///   bus, so a bus used with many one-off topics does not grow.
/// - Cost: each topic's subscribers are the subscribers of one ``SendableEmitter``. Publishing takes
///   the bus's lock once to find the topic's emitter, then sends through it (the emitter's lock,
///   once); each delivery is then an atomic load and the call, plus a weak load for a sender
///   filter and an atomic exchange for `once`. It allocates nothing per delivery.
public final class TopicBus: Sendable {
  // `publish`, the synchronous `subscribe`s and `events` are `@inlinable`, so that the caller's
  // compiler specializes them, and the closures they hand to the emitter, for the payload type.
  // Unspecialized, each publish and each delivery looked up the generic metadata of the event's
  // types at run time: about 5,000 instructions for a publish to one subscriber, against about
  // 1,100 specialized (counted with callgrind on Linux, for an `Int` payload).

  /// A topic's channel, and how many of the topic's subscriptions have not been released yet.
  @usableFromInline
  struct Filed: Sendable {
    @usableFromInline let channel: any AnyTopicChannel
    var subscriptions: Int
  }

  /// The topics that have subscriptions. A channel is filed by the first subscription to its
  /// topic and taken out when the last one is released (see `subscriberLeft`); channels are
  /// created under the lock, and released after it.
  @usableFromInline let table = LockedState<[TopicKey: Filed]>([:])

  /// Creates an empty bus.
  public init() {}

  /// A bus for the whole process, for code that has no bus of its own to share.
  public static let shared = TopicBus()

  // MARK: Publishing

  /// Publishes `payload` on `topic`, naming `sender` as its publisher.
  ///
  /// Every subscriber of `topic` present when the publish begins, whose sender filter matches,
  /// whose owner is alive and that is not unsubscribed meanwhile, receives one ``TopicEvent``,
  /// before this method returns if it is bound to the caller's actor, after a hop to its actor
  /// or queue otherwise. A `once` subscriber receives only the first event
  /// that reaches it: when a handler publishes on the same topic, that nested publish can reach it
  /// first, and this publish then skips it.
  ///
  /// - Parameters:
  ///   - topic: The topic to publish on; only its subscribers receive the event.
  ///   - payload: The event's payload, handed to every subscriber that receives the event.
  ///   - sender: The publishing object, for subscribers that filter by sender; the event keeps it
  ///     alive while it is delivered.
  ///   - isolation: Where the caller runs; leave the default. When it is the main actor,
  ///     main-actor handlers are called at once instead of in a later turn of the main actor.
  @inlinable
  public func publish<Payload>(
    _ topic: Topic<Payload>, _ payload: Payload, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) {
    let key = topic.key
    guard let channel = table.withLock({ $0[key]?.channel }) else { return }
    let event = TopicEvent(topic: topic, sender: sender, payload: payload)
    // The table's key (name and payload type) guarantees the channel's type.
    unsafeDowncast(channel, to: TopicChannel<Payload>.self).emitter.send(
      event, isolation: isolation)
  }

  /// Publishes on a topic without payload.
  public func publish(
    _ topic: Topic<Void>, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) {
    publish(topic, (), from: sender, isolation: isolation)
  }

  // MARK: Streams

  /// The events of `topic` (from `sender` only, when given) as a value stream for the caller's
  /// actor: each subscription of it is one subscriber of the bus, and runs on that actor, as
  /// with ``subscribe(to:from:once:isolation:_:)``.
  ///
  /// The stream is not `Sendable`: it stays with the actor that made it. It keeps the bus
  /// alive; it keeps `sender` weakly.
  @inlinable
  public func events<Payload>(
    _ topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<TopicEvent<Payload>> {
    let filter = WeakSender(sender)
    return ValueObservable { observer in
      guard let sender = filter.resolve() else { return noopDisconnect }  // sender is gone
      let next = observer.next
      return self.add(topic, sender: sender, once: false) { emitter, state in
        emitter.subscribe(isolation: isolation) { event in
          if state.admits(sender: event.sender) { next(event) }
        }
      }.unsubscribe
    }
  }

  // MARK: Subscribing

  /// Calls `handler` with each event of `topic` (from `sender` only, when given), on the
  /// caller's actor.
  ///
  /// An event published from that actor is delivered before `publish` returns; one published
  /// elsewhere hops to the actor, after the events published before it from the same thread.
  /// Code that is not isolated to an actor subscribes on a queue or on the publishing thread
  /// (`subscribe(to:on:)`), with a `@Sendable` handler.
  ///
  /// - Parameters:
  ///   - topic: The topic whose events are delivered.
  ///   - sender: Only events published by this object are delivered; kept weakly. When it is
  ///     deallocated, the subscription receives nothing more.
  ///   - once: Deliver only the next matching event, then end the subscription. Of concurrent
  ///     publishes, exactly one is delivered.
  ///   - isolation: The actor `handler` runs on: the caller's, which the compiler passes.
  ///   - handler: Called with each delivered event, on `isolation`, with no lock held.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  @discardableResult
  @inlinable
  public func subscribe<Payload>(
    to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil, once: Bool = false,
    isolation: isolated any Actor = #isolation,
    _ handler: @escaping (TopicEvent<Payload>) -> Void
  ) -> SendableSubscription {
    add(topic, sender: sender, once: once) { emitter, state in
      emitter.subscribe(isolation: isolation) { event in
        if state.admits(sender: event.sender) { handler(event) }
      }
    }
  }

  /// Calls `handler` with `owner` and each event of `topic`, on the caller's actor, for as long
  /// as `owner` lives and until `owner`'s subscriptions are ended with ``unsubscribe(_:from:)``
  /// or ``unsubscribe(_:)``.
  ///
  /// The bus keeps `owner` weakly and passes it to `handler`, so the handler need not capture it
  /// and no reference cycle forms. Parameters and threading are as for
  /// ``subscribe(to:from:once:isolation:_:)``.
  @discardableResult
  @inlinable
  public func subscribe<Owner: AnyObject, Payload>(
    _ owner: Owner, to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil,
    once: Bool = false, isolation: isolated any Actor = #isolation,
    _ handler: @escaping (Owner, TopicEvent<Payload>) -> Void
  ) -> SendableSubscription {
    add(topic, sender: sender, once: once) { emitter, state in
      // Bound to the owner in the emitter: it ends with the owner, and with
      // `emitter.unsubscribe(owner)`.
      emitter.subscribe(owner, isolation: isolation) { owner, event in
        if state.admits(sender: event.sender) { handler(owner, event) }
      }
    }
  }

  /// Calls `handler` with each event of `topic` (from `sender` only, when given), on `target`:
  /// on a queue (GLPubSub's `setPubSubQueue:`), in the order published from each thread when
  /// the queue is serial; on `.sendingThread`, on the publishing thread, before `publish`
  /// returns (see ``SynchronousDelivery``). Parameters as for
  /// ``subscribe(to:from:once:isolation:_:)``.
  @discardableResult
  @inlinable
  public func subscribe<Payload>(
    to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil, once: Bool = false,
    on target: some DeliveryTarget,
    _ handler: @escaping @Sendable (TopicEvent<Payload>) -> Void
  ) -> SendableSubscription {
    add(topic, sender: sender, once: once) { emitter, state in
      emitter.subscribe(on: target) { event in
        if state.admits(sender: event.sender) { handler(event) }
      }
    }
  }

  /// Calls `handler` with `owner` and each event of `topic`, on `target`, for as long as `owner`
  /// lives; as ``subscribe(_:to:from:once:isolation:_:)`` otherwise. On a queue, the owner is
  /// checked there, right before each call.
  @discardableResult
  @inlinable
  public func subscribe<Owner: AnyObject & Sendable, Payload>(
    _ owner: Owner, to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil,
    once: Bool = false, on target: some DeliveryTarget,
    _ handler: @escaping @Sendable (Owner, TopicEvent<Payload>) -> Void
  ) -> SendableSubscription {
    add(topic, sender: sender, once: once) { emitter, state in
      emitter.subscribe(owner, on: target) { owner, event in
        if state.admits(sender: event.sender) { handler(owner, event) }
      }
    }
  }

  // MARK: Unsubscribing

  /// Ends every subscription of `owner` to `topic`. Other owners, and `owner`'s other topics,
  /// are untouched. Does nothing when there are none.
  public func unsubscribe<Payload>(_ owner: AnyObject, from topic: Topic<Payload>) {
    let key = topic.key
    table.withLock { $0[key]?.channel }?.endSubscriptions(of: owner)
  }

  /// Ends every subscription of `owner`, on every topic of this bus: the spelling of a multicast
  /// source's `unsubscribe(_:)` (GLPubSub's `unsubscribeAll`, which ends the receiver's own).
  public func unsubscribe(_ owner: AnyObject) {
    let channels = table.withLock { table in table.values.map(\.channel) }
    for channel in channels { channel.endSubscriptions(of: owner) }
  }

  // MARK: Internals

  /// Makes one subscription to `topic`: `subscribe` subscribes to the topic's emitter a closure
  /// that consults `state`, and returns the emitter's subscription, which is returned.
  @usableFromInline
  func add<Payload>(
    _ topic: Topic<Payload>, sender: (any AnyObject & Sendable)?, once: Bool,
    _ subscribe: (SendableEmitter<TopicEvent<Payload>>, TopicSubscriberState) ->
      SendableSubscription
  ) -> SendableSubscription {
    let key = topic.key
    // Counted before the emitter is used, so that the channel stays filed while it is.
    let channel = table.withLock { table in
      if let filed = table[key] {
        table[key]!.subscriptions += 1
        return unsafeDowncast(filed.channel, to: TopicChannel<Payload>.self)
      }
      let channel = TopicChannel<Payload>()
      table[key] = Filed(channel: channel, subscriptions: 1)
      return channel
    }
    // From here on, the state's deinit uncounts the subscription.
    let state = TopicSubscriberState(bus: self, key: key, sender: sender, once: once)
    let subscription = subscribe(channel.emitter, state)
    state.attach(subscription)
    return subscription
  }

  /// Uncounts a released subscription of the topic `key`; the last one takes the topic's
  /// channel out of the table.
  func subscriberLeft(_ key: TopicKey) {
    let emptied: (any AnyTopicChannel)? = table.withLock { table in
      guard table[key] != nil else {
        assertionFailure("a subscription of a topic that is not filed")
        return nil
      }
      table[key]!.subscriptions -= 1
      guard table[key]!.subscriptions == 0 else { return nil }
      return table.removeValue(forKey: key)?.channel
    }
    withExtendedLifetime(emptied) {}  // released here, after the lock
  }
}

/// An optional sender filter kept weakly by a stream recipe.
///
/// `resolve()` is nil when a sender was given and is gone (nothing can match any more), and
/// `.some(nil)` when no sender was given.
@usableFromInline
struct WeakSender: Sendable {
  @usableFromInline let wasGiven: Bool
  @usableFromInline weak var sender: (any AnyObject & Sendable)?

  @inlinable init(_ sender: (any AnyObject & Sendable)?) {
    wasGiven = sender != nil
    self.sender = sender
  }

  @inlinable func resolve() -> (any AnyObject & Sendable)?? {
    guard wasGiven else { return .some(nil) }
    guard let sender else { return nil }
    return .some(sender)
  }
}
