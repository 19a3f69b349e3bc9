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
/// Subscribe through the bag with ``subscribe(to:about:_:)-(ValueObservable<T>,_,_)`` to be able to end the subscriptions
/// to one source with ``unsubscribe(from:)``. Each call subscribes, as `source.subscribe` does:
/// two calls with the same source about the same object make two subscriptions, both delivered.
/// ``subscribeOnce(to:about:_:)`` refuses the second one instead, as ZCRMailbox does, with a
/// thrown ``AlreadySubscribed``.
/// File subscriptions under the object they are about (`about:`, or a stream that names its
/// object, see ``StreamOfObject``) to end everything one object feeds with one call, as
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
/// - Threading: not `Sendable`, as the `Subscription`s it holds are not: a bag stays in the
///   isolation of the object that holds it, where its subscriptions' disconnects may run. (A
///   `Sendable` type keeps `SendableSubscription`s instead, which any thread may end.)
///   Unsubscribing takes the subscriptions out of the bag before it runs their disconnects, so
///   a disconnect or a subscriber may use the bag.
/// - Lifetime: the bag keeps its subscriptions (and what their disconnects keep, such as the
///   subscribers of a cold stream) until it ends them; it does not keep the sources. `deinit`
///   calls ``unsubscribeAll()``.
public final class SubscriptionBag {
  private var state = State()

  private struct State {
    var entries: [Entry] = []
    // The entry count at which `insert` next drops the subscriptions that have ended.
    var pruneAt = 16
    // What `subscribeOnce` made, by source and object, so that a repeat is found without a scan;
    // a key is reserved while its subscription is being made, outside the lock.
    var once: [OnceKey: OnceSlot] = [:]

    /// Drops the entries whose subscription has ended and returns them, to be released once
    /// the state is written.
    mutating func pruned() -> [Entry] {
      var released: [Entry] = []
      entries.removeAll { entry in
        guard entry.subscription.isUnsubscribed else { return false }
        released.append(entry)
        return true
      }
      once = once.filter { _, slot in
        guard case .made(let entry) = slot else { return true }
        return !entry.subscription.isUnsubscribed
      }
      return released
    }
  }

  /// A source and the object its subscription is about, by address.
  private struct OnceKey: Hashable {
    let source: ObjectIdentifier
    let object: ObjectIdentifier?
  }

  /// What `subscribeOnce` holds for one source and object.
  private enum OnceSlot {
    /// Its subscription is being made.
    case reserved
    /// Its subscription, which counts while it has not ended and both its source and object are
    /// the ones of the key (not freed objects whose addresses were reused).
    case made(Entry)
  }

  /// The error of ``subscribeOnce(to:about:_:)`` when the bag already holds a subscription, not
  /// ended, to the same source about the same object (or is still making it).
  ///
  /// It does not carry that subscription: an error is `Sendable`, and a `Subscription` is
  /// not. The caller got it from the first call.
  public struct AlreadySubscribed: Error {}
  /// One subscription, the source it was made to with ``subscribe(to:about:_:)-(ValueObservable<T>,_,_)``, if any, and
  /// the object it is about, if any.
  struct Entry {
    let subscription: Subscription
    // The addresses, compared first, so that no weak reference is loaded unless it may match.
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
    for entry in state.entries { entry.subscription.unsubscribe() }
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
  ///     weakly. When nil (the default), a source that is an ``StreamOfObject`` gives its
  ///     ``StreamOfObject/streamedObject``, read once, here; other sources give none.
  ///   - next: Called with each value.
  /// - Returns: The subscription, which you may also end alone.
  @discardableResult
  public func subscribe<T>(
    to source: ValueObservable<T>,
    about object: AnyObject? = nil,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    let subscription = source.subscribe(next)
    let object = object ?? (source as? any StreamOfObject)?.streamedObject
    insert(subscription, source: source, object: object)
    return subscription
  }

  /// Subscribes `next` to `source` unless the bag already holds a subscription, not ended, that
  /// ``subscribeOnce(to:about:_:)`` made to the same source about the same object, as
  /// ZCRMailbox refuses a second subscription to the same object and key path.
  ///
  /// ```swift
  /// let bag = SubscriptionBag()
  /// let title = CurrentValue("Weekly")
  /// try bag.subscribeOnce(to: title) { print($0) }  // prints "Weekly"
  /// do {
  ///   try bag.subscribeOnce(to: title) { print($0) }
  /// } catch {
  ///   // error is AlreadySubscribed: the first subscription goes on, and is the only one
  /// }
  /// ```
  ///
  /// The check costs the same however many subscriptions the bag holds. Once the first
  /// subscription has ended (by its own `unsubscribe()`, ``unsubscribe(from:)`` or
  /// ``unsubscribeAll()``), or its source or object is gone, a new one is made. Only
  /// subscriptions made by this method count: ``subscribe(to:about:_:)-(ValueObservable<T>,_,_)`` always subscribes.
  /// A call made while the first is still subscribing (from a replayed value's subscriber)
  /// throws, with no subscription yet.
  ///
  /// - Parameters: See ``subscribe(to:about:_:)-(ValueObservable<T>,_,_)``; a source that is an ``StreamOfObject`` gives
  ///   its object when `object` is nil, for the check too.
  /// - Returns: The new subscription.
  /// - Throws: ``AlreadySubscribed``; `next` is not subscribed and is released.
  @discardableResult
  public func subscribeOnce<T>(
    to source: ValueObservable<T>,
    about object: AnyObject? = nil,
    _ next: @escaping (T) -> Void
  ) throws(AlreadySubscribed) -> Subscription {
    let object = object ?? (source as? any StreamOfObject)?.streamedObject
    let key = OnceKey(source: ObjectIdentifier(source), object: object.map(ObjectIdentifier.init))
    switch state.once[key] {
    case .reserved:
      throw AlreadySubscribed()
    case .made(let entry)
    where !entry.subscription.isUnsubscribed && entry.source === source
      && entry.object === object:
      throw AlreadySubscribed()
    default:
      state.once[key] = .reserved
    }
    let subscription = source.subscribe(next)
    let entry = insert(subscription, source: source, object: object)
    state.once[key] = .made(entry)
    return subscription
  }

  /// Ends the subscriptions in the bag that were made to `object` or are about it: those that
  /// ``subscribe(to:about:_:)-(ValueObservable<T>,_,_)`` made to `object` as their source, and those filed under it
  /// (given `about: object`, or made to an ``StreamOfObject`` of it).
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
  /// runs the disconnects once the subscriptions are out of the bag.
  public func unsubscribe(from object: AnyObject) {
    var ended: [Subscription] = []
    state.entries.removeAll { entry in
      guard entry.concerns(object) else { return false }
      ended.append(entry.subscription)
      return true
    }
    for subscription in ended { subscription.unsubscribe() }
  }

  /// Ends every subscription in the bag and empties it. The bag can be used again afterwards.
  public func unsubscribeAll() {
    let ended = state.entries
    state.entries = []
    state.once = state.once.filter { _, slot in
      if case .reserved = slot { true } else { false }
    }
    for entry in ended { entry.subscription.unsubscribe() }
  }

  /// The number of subscriptions in the bag that have not ended.
  public var count: Int {
    _ = state.pruned()
    return state.entries.count
  }

  /// Adds `subscription`, about `object`, to the bag, and returns the entry made; `source` is the
  /// stream it came from, for ``subscribeOnce(to:about:_:)``.
  @discardableResult
  func insert(_ subscription: Subscription, source: AnyObject?, object: AnyObject?) -> Entry {
    let entry = Entry(
      subscription: subscription, sourceID: source.map(ObjectIdentifier.init), source: source,
      objectID: object.map(ObjectIdentifier.init), object: object)
    state.entries.append(entry)
    if state.entries.count >= state.pruneAt {
      _ = state.pruned()
      state.pruneAt = max(16, state.entries.count * 2)
    }
    return entry
  }
}

extension Subscription {
  /// Adds the subscription to `bag`, to be ended with the bag (when it is deallocated, or by
  /// ``SubscriptionBag/unsubscribeAll()``), or with the others about `object` by
  /// ``SubscriptionBag/unsubscribe(from:)``.
  ///
  /// ```swift
  /// let bag = SubscriptionBag()
  /// let ticks = Emitter<Int>()
  /// ticks.subscribe { print($0) }.store(in: bag)
  /// ```
  ///
  /// A subscription ended elsewhere (by its own `unsubscribe()`) leaves the bag: its `count` no
  /// longer counts it, and the bag lets go of it by the time it has doubled in size.
  ///
  /// - Parameters:
  ///   - bag: The bag that keeps the subscription.
  ///   - object: The object the subscription is about (the one whose values or changes it
  ///     receives), to be ended by `bag.unsubscribe(from: object)`; nil for none. The bag holds
  ///     it weakly.
  public func store(in bag: SubscriptionBag, about object: AnyObject? = nil) {
    bag.insert(self, source: nil, object: object)
  }
}

extension SendableSubscription {
  /// Adds the subscription to `bag`, as `Subscription.store(in:about:)` does; the bag holds
  /// it as a `Subscription` made from it, and sees it ended from any thread.
  public func store(in bag: SubscriptionBag, about object: AnyObject? = nil) {
    bag.insert(Subscription(self), source: nil, object: object)
  }
}
