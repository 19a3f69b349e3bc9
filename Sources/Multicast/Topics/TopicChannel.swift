import IndefiniteObservable

/// A topic's channel, whatever its payload type, as a ``TopicBus``'s table holds it: the
/// ``SendableEmitter`` of `TopicEvent`s whose read-only view `source(for:from:)` hands out.
@usableFromInline
protocol AnyTopicChannel: AnyObject, Sendable {
  /// Ends every subscription bound to `owner` (the front's `unsubscribe(_:)`).
  func unsubscribe(_ owner: AnyObject)

  /// Ends every subscription (the front's `unsubscribeAll()`).
  func unsubscribeAll()

  /// The number of subscriptions not ended, read under the emitter's lock without sweeping
  /// lost owners: what the bus reads, under its own lock, when the count changes.
  var countUnderLock: Int { get }
}

extension SendableEmitter: AnyTopicChannel {
  @usableFromInline var countUnderLock: Int {
    storage.locked.withLock { $0.count }
  }
}

extension MulticastStorage {
  /// What a send takes under the lock, for an emitter that keeps no value: the count of sends,
  /// and the subscribers to call. ``TopicBus/publish(_:_:from:isolation:)`` takes it from both
  /// of the channels it sends to before it delivers to either, so that a subscriber added by a
  /// handler during the publish, to either channel, does not receive that publish.
  @inlinable
  func subscribersForSend() -> ContiguousArray<MulticastEntry<T>?> {
    var kept: T? = nil  // an emitter of topic events keeps none: `store` leaves this as it is
    return locked.withLock { $0.store(&kept, keeping: 0) }
  }
}

/// One channel in a ``TopicBus``'s table: the events of one topic, from every sender or from
/// one sender.
///
/// The table keeps the channel weakly while it has no subscriber, so that every view handed
/// out of it, and every later `source(for:from:)`, reaches the same emitter; and strongly
/// (`held`) while it has one, so that its subscribers live without a view.
@usableFromInline
struct FiledChannel: Sendable {
  /// The channel's emitter, while anything keeps it.
  @usableFromInline weak let channel: (any AnyTopicChannel)?
  /// The emitter, while it has subscribers.
  @usableFromInline var held: (any AnyTopicChannel)?
  /// The sender whose events the channel carries; nil for the channel of every sender.
  @usableFromInline weak let sender: (any AnyObject & Sendable)?
  /// Which filing this is: the emitter's count observer names it, so that it never acts on a
  /// later channel filed under the same key.
  let generation: UInt64

  init(
    channel: any AnyTopicChannel, sender: (any AnyObject & Sendable)?, generation: UInt64
  ) {
    self.channel = channel
    self.held = nil
    self.sender = sender
    self.generation = generation
  }
}

/// Where a channel is filed: its topic, and the identifier of its sender, if it has one.
///
/// An identifier is reused once its object is deallocated: a channel found under a sender's
/// identifier is that sender's only if its weak reference still leads to it.
@usableFromInline
struct ChannelKey: Hashable, Sendable {
  @usableFromInline let topic: TopicKey
  @usableFromInline let sender: ObjectIdentifier?

  @inlinable init(topic: TopicKey, sender: ObjectIdentifier?) {
    self.topic = topic
    self.sender = sender
  }
}

/// A topic's channels in a ``TopicBus``'s table.
@usableFromInline
struct TopicChannels: Sendable {
  /// The channel of every sender's events.
  @usableFromInline var everyone: FiledChannel?
  /// The channels of one sender's events each, by the sender's identifier.
  @usableFromInline var bySender: [ObjectIdentifier: FiledChannel] = [:]

  /// Whether no channel is left.
  var isEmpty: Bool { everyone == nil && bySender.isEmpty }

  /// Every channel, with its sender's identifier (nil for every sender's), for a sweep or an
  /// unsubscribe.
  var all: [(sender: ObjectIdentifier?, filed: FiledChannel)] {
    (everyone.map { [(nil, $0)] } ?? []) + bySender.map { ($0.key, $0.value) }
  }
}

/// What a ``TopicBus``'s lock guards.
@usableFromInline
struct TopicTable: Sendable {
  @usableFromInline var topics: [TopicKey: TopicChannels] = [:]
  /// The number of channels filed.
  var count = 0
  /// The ``count`` at which filing a channel next sweeps out the channels that are gone (their
  /// emitter released, or their sender): twice the count after the last sweep, so that a
  /// sweep, which reads every channel's references, is paid for by the filings since.
  var sweepAt = 32

  /// The channels a publish on `topic` from `sender` sends to, while they have subscribers:
  /// every sender's, and `sender`'s own.
  ///
  /// The weak reference to a channel's sender is read under the lock: it leads to `sender`,
  /// which the caller keeps alive, or to nothing, so it releases nothing here.
  @inlinable
  func channels(
    for topic: TopicKey, from sender: (any AnyObject & Sendable)?
  ) -> (everyone: (any AnyTopicChannel)?, sender: (any AnyTopicChannel)?) {
    guard let channels = topics[topic] else { return (nil, nil) }
    guard let sender, let filed = channels.bySender[ObjectIdentifier(sender)],
      filed.sender === sender
    else { return (channels.everyone?.held, nil) }
    return (channels.everyone?.held, filed.held)
  }

  /// The channel filed under `key`, if any.
  subscript(key: ChannelKey) -> FiledChannel? {
    guard let id = key.sender else { return topics[key.topic]?.everyone }
    return topics[key.topic]?.bySender[id]
  }

  /// Files `filed` under `key` (nil takes the channel out) and returns the entry it replaces,
  /// to be released after the lock.
  mutating func file(_ filed: FiledChannel?, under key: ChannelKey) -> FiledChannel? {
    var channels = topics.removeValue(forKey: key.topic) ?? TopicChannels()
    let replaced: FiledChannel?
    if let id = key.sender {
      replaced = channels.bySender.removeValue(forKey: id)
      if let filed { channels.bySender[id] = filed }
    } else {
      replaced = channels.everyone
      channels.everyone = filed
    }
    count += (filed == nil ? 0 : 1) - (replaced == nil ? 0 : 1)
    if !channels.isEmpty { topics[key.topic] = channels }
    return replaced
  }

  /// Takes out the channel filed under `key` if it is filing number `generation`, to be
  /// released after the lock.
  mutating func remove(_ key: ChannelKey, generation: UInt64) -> FiledChannel? {
    guard self[key]?.generation == generation else { return nil }
    return file(nil, under: key)
  }

  /// Sets what the table holds strongly of filing number `generation` under `key`: `channel`
  /// while it has subscribers, nil otherwise. Returns false when that filing is not in the table
  /// any more, and the entry replaced, to be released after the lock.
  mutating func hold(
    _ channel: (any AnyTopicChannel)?, under key: ChannelKey, generation: UInt64
  ) -> (isFiled: Bool, replaced: FiledChannel?) {
    guard var filed = self[key], filed.generation == generation else { return (false, nil) }
    filed.held = channel
    return (true, file(filed, under: key))
  }
}
