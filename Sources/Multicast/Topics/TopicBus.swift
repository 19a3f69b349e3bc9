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
///   belong to an *owner*: `unsubscribe(_:from:)` and `unsubscribeAll(_:)` end an owner's
///   subscriptions to one topic or to all of them. Every subscribe also returns a
///   `Subscription`.
/// - Streams: ``events(_:from:)`` is a `ValueObservable` of a topic's events, so operators,
///   ``IndefiniteObservable/ValueObservable/values`` and
///   ``IndefiniteObservable/ValueObservable/subscribeOnMainActor(_:)`` work on topics.
///
/// - Threading: publish, subscribe and unsubscribe from any thread, concurrently. Handlers run
///   synchronously on the publishing thread, in subscription order, with no lock held, so they
///   may publish, subscribe and unsubscribe themselves; handlers of `subscribe` are `@Sendable`
///   because they run on whichever thread publishes. For UI code, `subscribeOnMainActor` runs
///   `@MainActor` handlers on the main actor. A subscriber added during a publish does not
///   receive that publish. Once any unsubscribe returns, no new call of the handlers it removed
///   begins (a call already running on another thread may finish).
/// - Lifetime: the bus keeps each handler until its subscription ends, and keeps owners and
///   senders named in a filter weakly: when an owner (or a filtered sender) is deallocated, its
///   subscriptions receive nothing more and are removed at the next publish on their topic. A
///   `Subscription` does not keep the bus alive. Owner handlers receive the owner as an
///   argument, so they need not capture it.
/// - Cost: publishing takes the bus's lock once to read the topic's subscribers, then once per
///   subscriber to claim the delivery; it allocates nothing per delivery.
public final class TopicBus: @unchecked Sendable {
  // `table` is read and written only under `lock`. Each subscriber's `deliver` is guarded by the
  // same lock. Arrays in the table are copied out (a reference count, no allocation) before
  // handlers run, so handlers never run under the lock.
  private let lock = LockedState(())
  private var table: [TopicKey: ContiguousArray<TopicSubscriber>] = [:]

  /// Creates an empty bus.
  public init() {}

  /// A bus for the whole process, for code that has no bus of its own to share.
  public static let shared = TopicBus()

  // MARK: Publishing

  /// Publishes `payload` on `topic`, naming `sender` as its publisher.
  ///
  /// Every subscriber of `topic` present when the publish begins, whose sender filter matches,
  /// whose owner is alive and that is not unsubscribed meanwhile, receives one ``TopicEvent``,
  /// before this method returns (main-actor subscribers: see
  /// ``subscribeOnMainActor(to:from:once:_:)``). A `once` subscriber receives only the first event
  /// that reaches it: when a handler publishes on the same topic, that nested publish can reach it
  /// first, and this publish then skips it.
  ///
  /// - Parameters:
  ///   - topic: The topic to publish on; only its subscribers receive the event.
  ///   - payload: The event's payload, handed to every subscriber that receives the event.
  ///   - sender: The publishing object, for subscribers that filter by sender; the event keeps it
  ///     alive while it is delivered.
  ///   - isolation: Where the caller runs; leave the default. When it is the main actor,
  ///     main-actor handlers are called at once instead of in a later main-actor task.
  public func publish<Payload>(
    _ topic: Topic<Payload>, _ payload: Payload, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) {
    let key = topic.key
    let subscribers = lock.withLock { _ in table[key] }
    guard let subscribers else { return }
    let onMainActor = isolation === MainActor.shared
    let event = TopicEvent(topic: topic, sender: sender, payload: payload)
    for subscriber in subscribers {
      guard subscriber.accepts(sender: sender) else {
        if subscriber.isOrphaned { remove(subscriber) }
        continue
      }
      var owner: AnyObject?
      if subscriber.hasOwner {
        guard let alive = subscriber.owner else {
          remove(subscriber)
          continue
        }
        owner = alive
      }
      let typed = unsafeDowncast(subscriber, to: TypedTopicSubscriber<Payload>.self)
      guard let deliver = claim(typed) else { continue }
      deliver(owner, event, onMainActor)
    }
  }

  /// Publishes on a topic without payload.
  public func publish(
    _ topic: Topic<Void>, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) {
    publish(topic, (), from: sender, isolation: isolation)
  }

  // MARK: Streams

  /// The events of `topic` (from `sender` only, when given) as a value stream.
  ///
  /// Each subscription of the stream is one subscriber of the bus; values arrive on the
  /// publishing thread, as for `ValueObservable` in general. The stream keeps the bus alive;
  /// it keeps `sender` weakly.
  public func events<Payload>(
    _ topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil
  ) -> ValueObservable<TopicEvent<Payload>> {
    let filter = WeakSender(sender)
    return ValueObservable { observer in
      guard let sender = filter.resolve() else { return noopDisconnect }  // sender is gone
      let next = observer.next
      return self.add(
        TypedTopicSubscriber(topic: topic, sender: sender, owner: nil, once: false) { _, e, _ in
          next(e)
        }
      ).unsubscribe
    }
  }

  // MARK: Subscribing

  /// Calls `handler` with each event of `topic` (from `sender` only, when given), on the
  /// publishing thread.
  ///
  /// - Parameters:
  ///   - topic: The topic whose events are delivered.
  ///   - sender: Only events published by this object are delivered; kept weakly. When it is
  ///     deallocated, the subscription receives nothing more.
  ///   - once: Deliver only the next matching event, then end the subscription. Of concurrent
  ///     publishes, exactly one is delivered.
  ///   - handler: Called with each delivered event, on the publishing thread, with no lock held.
  /// - Returns: The subscription; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe<Payload>(
    to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil, once: Bool = false,
    _ handler: @escaping @Sendable (TopicEvent<Payload>) -> Void
  ) -> Subscription {
    add(
      TypedTopicSubscriber(topic: topic, sender: sender, owner: nil, once: once) { _, e, _ in
        handler(e)
      })
  }

  /// Calls `handler` with `owner` and each event of `topic`, for as long as `owner` lives and
  /// until `owner`'s subscriptions are ended with ``unsubscribe(_:from:)`` or
  /// ``unsubscribeAll(_:)``.
  ///
  /// The bus keeps `owner` weakly and passes it to `handler`, so the handler need not capture it
  /// and no reference cycle forms. Parameters and threading are as for
  /// ``subscribe(to:from:once:_:)``.
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable, Payload>(
    _ owner: Owner, to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil,
    once: Bool = false, _ handler: @escaping @Sendable (Owner, TopicEvent<Payload>) -> Void
  ) -> Subscription {
    add(
      TypedTopicSubscriber(topic: topic, sender: sender, owner: owner, once: once) { o, e, _ in
        handler(unsafeDowncast(o!, to: Owner.self), e)
      })
  }

  // MARK: Unsubscribing

  /// Ends every subscription of `owner` to `topic`. Other owners, and `owner`'s other topics,
  /// are untouched. Does nothing when there are none.
  public func unsubscribe<Payload>(_ owner: AnyObject, from topic: Topic<Payload>) {
    removeAll { $0.key == topic.key && $0.owner === owner }
  }

  /// Ends every subscription of `owner`, on every topic of this bus.
  public func unsubscribeAll(_ owner: AnyObject) {
    removeAll { $0.owner === owner }
  }

  // MARK: Internals

  /// Files `subscriber` and returns the subscription that removes it.
  func add(_ subscriber: TopicSubscriber) -> Subscription {
    lock.withLock { _ in table[subscriber.key, default: []].append(subscriber) }
    return Subscription { [weak self] in self?.remove(subscriber) }
  }

  /// Takes the handler for one delivery; a once-subscriber is removed in the same step, so only
  /// one publish gets it.
  @inline(__always)
  private func claim<Payload>(
    _ subscriber: TypedTopicSubscriber<Payload>
  ) -> TypedTopicSubscriber<Payload>.Deliver? {
    lock.withLock { _ in
      guard let deliver = subscriber.deliver else { return nil }
      if subscriber.once {
        subscriber.deliver = nil
        unfile(subscriber)
      }
      return deliver
    }
  }

  /// Removes `subscriber` from the table and drops its handler; idempotent.
  private func remove(_ subscriber: TopicSubscriber) {
    let released = lock.withLock { _ in
      defer { unfile(subscriber) }
      return subscriber.detach()
    }
    subscriber.didDetach()
    _ = released  // released here, after the lock
  }

  /// Removes the subscribers that match `condition`, and those whose owner or filtered sender
  /// is gone.
  private func removeAll(where condition: (TopicSubscriber) -> Bool) {
    var removed: [TopicSubscriber] = []
    var released: [Any?] = []
    lock.withLock { _ in
      for key in Array(table.keys) {
        table[key]!.removeAll { subscriber in
          guard condition(subscriber) || subscriber.isOrphaned else { return false }
          removed.append(subscriber)
          released.append(subscriber.detach())
          return true
        }
        if table[key]!.isEmpty { table[key] = nil }
      }
    }
    for subscriber in removed { subscriber.didDetach() }
    _ = released  // released here, after the lock
  }

  /// Takes `subscriber` out of the table; called under the lock.
  private func unfile(_ subscriber: TopicSubscriber) {
    guard let index = table[subscriber.key]?.firstIndex(where: { $0 === subscriber }) else {
      return
    }
    table[subscriber.key]!.remove(at: index)
    if table[subscriber.key]!.isEmpty { table[subscriber.key] = nil }
  }
}

/// An optional sender filter kept weakly by a stream recipe.
///
/// `resolve()` is nil when a sender was given and is gone (nothing can match any more), and
/// `.some(nil)` when no sender was given.
struct WeakSender: Sendable {
  private let wasGiven: Bool
  private weak var sender: (any AnyObject & Sendable)?

  init(_ sender: (any AnyObject & Sendable)?) {
    wasGiven = sender != nil
    self.sender = sender
  }

  func resolve() -> (any AnyObject & Sendable)?? {
    guard wasGiven else { return .some(nil) }
    guard let sender else { return nil }
    return .some(sender)
  }
}
