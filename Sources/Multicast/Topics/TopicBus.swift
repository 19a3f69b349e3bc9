import IndefiniteObservable
import Synchronization

/// A bus on which code publishes and subscribes by topic, without knowing each other.
///
/// ```swift
/// let bus = TopicBus()
/// let subscription = bus.source(for: .loggedIn).subscribe { event in
///   print("welcome, \(event.payload.user)")
/// }
/// bus.publish(.loggedIn, Login(user: "ada"))
/// subscription.unsubscribe()
/// ```
///
/// - Topics are typed: a ``Topic`` carries its payload type, and an event (``TopicEvent``)
///   carries the topic, the optional sender and the payload.
/// - Subscribing is the multicast sources' own: ``source(for:from:)`` is a read-only
///   ``SendableSource`` of a topic's events (of one sender's only, with `from:`), with every
///   spelling of the front: `subscribe { }` on the caller's actor, `subscribe(owner) { }`,
///   `subscribe(on: queue) { }`, `limit: 1` for the next event only, `stream()` for the
///   operators, `unsubscribe(owner)`. ``unsubscribe(_:from:)`` and ``unsubscribe(_:)`` end an
///   owner's subscriptions to one topic, or to all of them, whichever sender they filter on.
///
/// - Threading: publish, subscribe and unsubscribe from any thread, concurrently. A subscriber
///   runs where the front says: bound to the caller's actor, it runs at once for an event
///   published from that actor and after a hop otherwise, in the order published from each
///   thread; on a queue, there. No lock is held while a subscriber runs, so it may publish,
///   subscribe and unsubscribe itself. A subscriber added during a publish does not receive that
///   publish. Once any unsubscribe returns, no new call of the subscribers it ended begins (a
///   call already running on another thread may finish).
/// - Order: a publish reaches the subscribers of every sender's events first, then those of its
///   sender's, each in the order they subscribed.
/// - Lifetime: a source (and each of its subscriptions) keeps its sender weakly. When that
///   sender is deallocated, its subscriptions receive nothing more: an object later allocated
///   at its address is another sender. They are ended when the bus sweeps (once the number of
///   channels has doubled since the last sweep), or at once if they are subscribed after the
///   sender is gone. The bus keeps a topic's subscribers until their subscriptions end, and
///   keeps no event: an event, and the sender it names, are released when the publish returns
///   (or, for a subscriber that it reaches after a hop, once it has been delivered). A
///   subscription does not keep the bus alive. The bus does not grow with topics and senders
///   used once: a channel is let go of when it has no subscriber left, and its entry leaves
///   the bus then, or, when a source of it outlived its last subscriber, at the next sweep
///   after that source is gone.
/// - Cost: each (topic, sender) pair with subscribers is one ``SendableEmitter``, found by a
///   dictionary lookup: a publish from a sender reaches that sender's subscribers and every
///   sender's, and checks no other subscriber. Publishing takes the bus's lock once to find the
///   two emitters, and each emitter's lock once; each delivery is then an atomic load and the
///   call. It allocates nothing per delivery.
public final class TopicBus: Sendable {
  // `publish` is `@inlinable`, so that the caller's compiler specializes it for the payload
  // type. Unspecialized, each publish and each delivery looked up the generic metadata of the
  // event's types at run time: about 5,000 instructions for a publish to one subscriber,
  // against about 1,100 specialized (counted with callgrind on Linux, for an `Int` payload).

  /// The channels: each topic's for every sender, and each sender's. A channel is filed when
  /// `source(for:from:)` first makes it, held strongly while it has subscribers (its count
  /// observer, `countChanged`, says when), and taken out when its emitter is gone, or its sender
  /// is. Emitters are released, and their subscriptions ended, after the lock.
  @usableFromInline let table = LockedState(TopicTable())

  /// Numbers the filings, so that a channel's count observer acts on its own only.
  private let generations = Atomic<UInt64>(0)

  /// Creates an empty bus.
  public init() {}

  /// A bus for the whole process, for code that has no bus of its own to share.
  public static let shared = TopicBus()

  // MARK: Publishing

  /// Publishes `payload` on `topic`, naming `sender` as its publisher.
  ///
  /// Every subscriber of `topic` present when the publish begins, of every sender's events or
  /// of `sender`'s, whose owner is alive and that is not unsubscribed meanwhile, receives one
  /// ``TopicEvent``: before this method returns if it is bound to the caller's actor or to the
  /// sending thread, after a hop to its actor or queue otherwise. A subscriber of a `limit`
  /// receives no more than its limit, even when publishes race; a handler that publishes on the
  /// same topic can use it up first.
  ///
  /// - Parameters:
  ///   - topic: The topic to publish on; only its subscribers receive the event.
  ///   - payload: The event's payload, handed to every subscriber that receives the event.
  ///   - sender: The publishing object, for subscribers of one sender's events; the event keeps
  ///     it alive while it is delivered.
  ///   - isolation: Where the caller runs; leave the default. When it is the main actor,
  ///     main-actor subscribers are called at once instead of in a later turn of the main actor.
  @inlinable
  public func publish<Payload>(
    _ topic: Topic<Payload>, _ payload: Payload, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) {
    let key = topic.key
    let (everyone, fromSender) = table.withLock { $0.channels(for: key, from: sender) }
    guard everyone != nil || fromSender != nil else { return }
    let event = TopicEvent(topic: topic, sender: sender, payload: payload)
    // The table's key (name and payload type) guarantees the channels' type.
    let first = everyone.map {
      unsafeDowncast($0, to: SendableEmitter<TopicEvent<Payload>>.self).storage
    }
    let second = fromSender.map {
      unsafeDowncast($0, to: SendableEmitter<TopicEvent<Payload>>.self).storage
    }
    SendingIsolation.with(isolation) {
      // Both lists are taken before either is called: a subscriber that a handler adds to
      // either channel does not receive this publish.
      let firstSubscribers = first?.subscribersForSend()
      let secondSubscribers = second?.subscribersForSend()
      if let first, let firstSubscribers { first.deliver(event, to: firstSubscribers) }
      if let second, let secondSubscribers { second.deliver(event, to: secondSubscribers) }
    }
  }

  /// Publishes on a topic without payload.
  public func publish(
    _ topic: Topic<Void>, from sender: (any AnyObject & Sendable)? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) {
    publish(topic, (), from: sender, isolation: isolation)
  }

  // MARK: Subscribing

  /// The events of `topic`, or of `topic` published by `sender` only, as a read-only source
  /// that every subscribing spelling of the multicast sources takes.
  ///
  /// ```swift
  /// bus.source(for: .loggedIn).subscribe { event in print(event.payload.user) }
  /// bus.source(for: .loggedIn, from: session).subscribe(limit: 1) { _ in print("once") }
  /// let names = bus.source(for: .loggedIn).stream().map(\.payload.user)
  /// ```
  ///
  /// Each (topic, sender) pair is one channel: every call for it returns a view of the same
  /// source while the source is alive, and its `subscriberCount` counts them all. A publish
  /// from another sender never reaches a source of one sender, so it does not use up a `limit`.
  /// The source keeps no event (`replayingLast` finds nothing).
  ///
  /// - Threading: any thread may call this and use the source.
  /// - Lifetime: the source may be kept and subscribed at any time, while the bus lives; it
  ///   keeps its channel, not the bus, and keeps `sender` weakly. A subscription made once
  ///   `sender` is gone receives nothing, and is ended.
  ///
  /// - Parameters:
  ///   - topic: The topic whose events the source carries.
  ///   - sender: Only events published with `from: sender` (this very object) are carried; nil
  ///     for every event of the topic.
  /// - Returns: A `Sendable` read-only source of the topic's events.
  public func source<Payload>(
    for topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil
  ) -> ReadOnlySource<SendableEmitter<TopicEvent<Payload>>> {
    let key = ChannelKey(topic: topic.key, sender: sender.map(ObjectIdentifier.init))
    while true {
      // The weak references are read after the lock: a read can release the last strong one.
      let found = table.withLock { $0[key] }
      if let found, let channel = found.channel, key.sender == nil || found.sender === sender {
        return unsafeDowncast(channel, to: SendableEmitter<TopicEvent<Payload>>.self).readOnly
      }
      // None, or one whose emitter or sender is gone: file a new one unless another thread
      // has meanwhile.
      // A topic may legitimately have many subscribers.
      let made = SendableEmitter<TopicEvent<Payload>>(keepingLast: 0).withoutSubscriberLimit()
      let generation = generations.add(1, ordering: .relaxed).newValue
      // Observed before it is filed: a subscriber that finds it filed is counted.
      made.onSubscriberCountChange { [weak self, weak made, weak sender] _ in
        guard let self else { return }
        self.countChanged(
          key, generation: generation, channel: made,
          senderIsGone: key.sender != nil && sender == nil)
        if made == nil { self.forget(key, generation: generation) }
      }
      let filing = table.withLock { table -> (replaced: FiledChannel?, sweeps: Bool)? in
        guard table[key]?.generation == found?.generation else { return nil }
        let filed = FiledChannel(channel: made, sender: sender, generation: generation)
        let replaced = table.file(filed, under: key)
        let sweeps = table.count >= table.sweepAt
        if sweeps { table.sweepAt = .max }  // one sweep at a time
        return (replaced, sweeps)
      }
      guard let filing else { continue }
      // A channel replaced here had lost its sender: its subscriptions end.
      filing.replaced?.held?.unsubscribeAll()
      if filing.sweeps { sweep() }
      return made.readOnly
    }
  }

  // MARK: Unsubscribing

  /// Ends every subscription bound to `owner` among the sources of `topic`, of every sender's
  /// events and of each sender's: the front's `unsubscribe(_:)`, on every channel of the topic.
  /// Other owners, and `owner`'s other topics, are untouched. Does nothing when there are none.
  ///
  /// Once this returns, no call of the subscribers it ended begins; any thread may call it.
  public func unsubscribe<Payload>(_ owner: AnyObject, from topic: Topic<Payload>) {
    let key = topic.key
    let channels = table.withLock { $0.topics[key]?.all.compactMap(\.filed.held) ?? [] }
    for channel in channels { channel.unsubscribe(owner) }
  }

  /// Ends every subscription bound to `owner`, on every topic of this bus: the spelling of a
  /// multicast source's `unsubscribe(_:)` (GLPubSub's `unsubscribeAll`, which ends the
  /// receiver's own). As ``unsubscribe(_:from:)`` otherwise.
  public func unsubscribe(_ owner: AnyObject) {
    let channels = table.withLock { table in
      table.topics.values.flatMap { $0.all.compactMap(\.filed.held) }
    }
    for channel in channels { channel.unsubscribe(owner) }
  }

  // MARK: Filing

  /// What a channel's count observer does: holds the channel while it has subscribers (the
  /// count is read again under the bus's lock, since reports from several threads may arrive
  /// out of order), lets it go when it has none, and ends the subscriptions of a channel whose
  /// sender is gone, or that is not filed any more (which only a gone sender causes).
  func countChanged(
    _ key: ChannelKey, generation: UInt64, channel: (any AnyTopicChannel)?, senderIsGone: Bool
  ) {
    guard let channel else { return }  // being deallocated, with nothing left to end
    if senderIsGone {
      forget(key, generation: generation)
      channel.unsubscribeAll()
      return
    }
    let (isFiled, replaced) = table.withLock { table in
      table.hold(channel.countUnderLock > 0 ? channel : nil, under: key, generation: generation)
    }
    withExtendedLifetime(replaced) {}  // released here, after the lock
    if !isFiled { channel.unsubscribeAll() }
  }

  /// Takes out filing number `generation` under `key`, whose emitter or sender is gone.
  func forget(_ key: ChannelKey, generation: UInt64) {
    let removed = table.withLock { $0.remove(key, generation: generation) }
    withExtendedLifetime(removed) {}  // released here, after the lock
  }

  /// Takes out every channel whose emitter is gone, or whose sender is, ending the latter's
  /// subscriptions. Reads every channel's weak references, after the lock: `source(for:from:)`
  /// calls it once the number of channels has doubled since the last sweep.
  func sweep() {
    let filed = table.withLock { table in
      table.topics.flatMap { topic, channels in
        channels.all.map { (key: ChannelKey(topic: topic, sender: $0.sender), filed: $0.filed) }
      }
    }
    let gone = filed.filter {
      $0.filed.channel == nil || ($0.key.sender != nil && $0.filed.sender == nil)
    }
    let removed = table.withLock { table in
      defer { table.sweepAt = max(32, table.count * 2) }
      return gone.compactMap { table.remove($0.key, generation: $0.filed.generation) }
    }
    for channel in removed { channel.held?.unsubscribeAll() }
  }

  /// The number of channels filed, after a sweep, for tests.
  var channelCount: Int {
    sweep()
    return table.withLock { $0.count }
  }

  /// The number of channels held for their subscribers, for tests.
  var heldChannelCount: Int {
    table.withLock { table in
      table.topics.values.reduce(0) { $0 + $1.all.count { $0.filed.held != nil } }
    }
  }
}
