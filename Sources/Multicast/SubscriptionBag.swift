import Dispatch
import IndefiniteObservable

/// Subscriptions that end together: when the bag is deallocated, or when you say so.
///
/// Give an object a bag and its subscriptions live exactly as long as it does:
///
/// ```swift
/// final class Screen {
///   let bag = SubscriptionBag()
///   var lines: [String] = []
///
///   init(log: Emitter<String>) {
///     log.subscribe { [unowned self] in lines.append($0) }.store(in: bag)
///   }
/// }
/// ```
///
/// Subscribe through the bag with ``subscribe(to:about:_:)`` to be able to end the subscriptions
/// to one source with ``unsubscribe(from:)``.
/// File subscriptions under the object they are about (`about:`, or a stream that names its
/// object, see ``ObjectStream``) to end everything one object feeds with one call, as
/// ZCRMailbox's `unsubscribeFrom:` an object does:
///
/// ```swift
/// final class Newsletter {
///   let title = CurrentValue("Weekly")
///   let posts = Emitter<String>()
/// }
/// let newsletter = Newsletter()
/// let bag = SubscriptionBag()
/// bag.subscribe(to: newsletter.title, about: newsletter) { print($0) }
/// newsletter.posts.subscribe { print($0) }.store(in: bag, about: newsletter)
/// bag.unsubscribe(from: newsletter)  // ends both
/// ```
///
/// - Threading: every method may be called from any thread, at once. Unsubscribing runs the
///   subscriptions' disconnects on the calling thread, outside the bag's lock, so a disconnect
///   or a subscriber may use the bag.
/// - Lifetime: the bag keeps its subscriptions (and what their disconnects keep, such as the
///   subscribers of a cold stream) until it ends them; it does not keep the sources. `deinit`
///   calls ``unsubscribeAll()``.
public final class SubscriptionBag: @unchecked Sendable {
  // `@unchecked Sendable`: the entries live inside the lock. An entry holds its source and the
  // object it is about weakly; neither is `Sendable`, but both are only ever compared by
  // identity, never called.
  private let state = LockedState(State())

  private struct State {
    var entries: [Entry] = []
    // The entry count at which `insert` next drops the subscriptions that have ended.
    var pruneAt = 16

    /// Drops the entries whose subscription has ended and returns them, to be released after
    /// the lock.
    mutating func pruned() -> [Entry] {
      var released: [Entry] = []
      entries.removeAll { entry in
        guard entry.subscription.isUnsubscribed else { return false }
        released.append(entry)
        return true
      }
      return released
    }
  }

  /// One subscription, the source it was made to with ``subscribe(to:about:_:)``, if any, and
  /// the object it is about, if any.
  private struct Entry {
    let subscription: Subscription
    // The addresses, compared first, so that no weak reference is loaded (which could release
    // the last strong one, and run a deinit, under the lock) unless it may match.
    let sourceID: ObjectIdentifier?
    weak var source: AnyObject?
    let objectID: ObjectIdentifier?
    weak var object: AnyObject?

    /// Whether this entry was made to `object` or is about it; the caller keeps `object` alive.
    /// A freed object whose address was reused never matches: its weak reference reads nil.
    func concerns(_ object: AnyObject) -> Bool {
      let id = ObjectIdentifier(object)
      return (sourceID == id && source === object) || (objectID == id && self.object === object)
    }
  }

  /// Creates an empty bag.
  public init() {}

  deinit {
    for entry in state.withLock({ $0.entries }) { entry.subscription.unsubscribe() }
  }

  /// Adds `subscription`, to be ended with the bag, or with the others about `object` by
  /// ``unsubscribe(from:)``.
  ///
  /// A subscription ended elsewhere (by its own `unsubscribe()`) leaves the bag: ``count`` no
  /// longer counts it, and the bag lets go of it by the time it has doubled in size.
  ///
  /// - Parameters:
  ///   - subscription: The subscription, whatever made it.
  ///   - object: The object the subscription is about (the one whose values or changes it
  ///     receives), to be ended by `unsubscribe(from: object)`; nil for none. The bag holds it
  ///     weakly.
  public func insert(_ subscription: Subscription, about object: AnyObject? = nil) {
    insert(subscription, source: nil, object: object)
  }

  /// Subscribes `next` to `source` and keeps the subscription, to be ended with the bag or by
  /// ``unsubscribe(from:)`` with the source or with the object it is about.
  ///
  /// `next` runs where `source` delivers, as with `source.subscribe(next)`. (ZCRMailbox's
  /// `messageQueue` has no counterpart: a subscriber runs on the actor it was written on; see
  /// the Concurrency guide.)
  ///
  /// - Parameters:
  ///   - source: The stream to subscribe to. The bag holds it weakly.
  ///   - object: The object the subscription is about, to be ended by
  ///     `unsubscribe(from: object)` with every other subscription about it; the bag holds it
  ///     weakly. When nil (the default), a source that is an ``ObjectStream`` gives its
  ///     ``ObjectStream/streamedObject``, read once, here; other sources give none.
  ///   - next: Called with each value.
  /// - Returns: The subscription, which you may also end alone.
  @discardableResult
  public func subscribe<T>(
    to source: ValueObservable<T>,
    about object: AnyObject? = nil,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    let subscription = source.subscribe(next)
    let object = object ?? (source as? any ObjectStream)?.streamedObject
    insert(subscription, source: source, object: object)
    return subscription
  }

  /// Ends the subscriptions in the bag that were made to `object` or are about it: those that
  /// ``subscribe(to:about:_:)`` made to `object` as their source, and those filed under it
  /// (given `about: object`, or made to an ``ObjectStream`` of it).
  ///
  /// ```swift
  /// let bag = SubscriptionBag()
  /// let clicks = Emitter<Int>()
  /// bag.subscribe(to: clicks) { print($0) }
  /// bag.unsubscribe(from: clicks)
  /// ```
  ///
  /// A source is the observable object passed in: `emitter.map { ... }` is another source than
  /// `emitter`. The bag keeps neither its sources nor the objects alive, and one that has been
  /// deallocated matches nothing, even when a new object has been given its address. Ending
  /// runs the disconnects on the calling thread, after the bag's lock is released.
  public func unsubscribe(from object: AnyObject) {
    let ended: [Subscription] = state.withLock { state in
      var ended: [Subscription] = []
      state.entries.removeAll { entry in
        guard entry.concerns(object) else { return false }
        ended.append(entry.subscription)
        return true
      }
      return ended
    }
    for subscription in ended { subscription.unsubscribe() }
  }

  /// Ends every subscription in the bag and empties it. The bag can be used again afterwards.
  public func unsubscribeAll() {
    let ended = state.withLock { state in
      defer { state.entries = [] }
      return state.entries
    }
    for entry in ended { entry.subscription.unsubscribe() }
  }

  /// The number of subscriptions in the bag that have not ended.
  public var count: Int {
    let (count, released) = state.withLock { state in
      let released = state.pruned()
      return (state.entries.count, released)
    }
    _ = released  // released here, after the lock
    return count
  }

  func insert(_ subscription: Subscription, source: AnyObject?, object: AnyObject?) {
    let entry = Entry(
      subscription: subscription, sourceID: source.map(ObjectIdentifier.init), source: source,
      objectID: object.map(ObjectIdentifier.init), object: object)
    let released: [Entry] = state.withLock { state in
      state.entries.append(entry)
      guard state.entries.count >= state.pruneAt else { return [] }
      let released = state.pruned()
      state.pruneAt = max(16, state.entries.count * 2)
      return released
    }
    _ = released  // released here, after the lock
  }
}

extension Subscription {
  /// Adds the subscription to `bag`, which ends it when the bag is deallocated, or with the
  /// others about `object` when asked to (see ``SubscriptionBag/insert(_:about:)``).
  ///
  /// ```swift
  /// let bag = SubscriptionBag()
  /// let ticks = Emitter<Int>()
  /// ticks.subscribe { print($0) }.store(in: bag)
  /// ```
  ///
  /// - Parameters:
  ///   - bag: The bag that keeps the subscription.
  ///   - object: The object the subscription is about, to be ended by
  ///     `bag.unsubscribe(from: object)`; nil for none. The bag holds it weakly.
  public func store(in bag: SubscriptionBag, about object: AnyObject? = nil) {
    bag.insert(self, about: object)
  }
}
