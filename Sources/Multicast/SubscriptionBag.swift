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
/// Subscribe through the bag with ``subscribe(to:_:)`` to be able to end the subscriptions to
/// one source with ``unsubscribe(from:)``.
///
/// - Threading: every method may be called from any thread, at once. Unsubscribing runs the
///   subscriptions' disconnects on the calling thread, outside the bag's lock, so a disconnect
///   or a subscriber may use the bag.
/// - Lifetime: the bag keeps its subscriptions (and what their disconnects keep, such as the
///   subscribers of a cold stream) until it ends them; it does not keep the sources. `deinit`
///   calls ``unsubscribeAll()``.
public final class SubscriptionBag: @unchecked Sendable {
  // `@unchecked Sendable`: the entries live inside the lock; An entry holds
  // its source weakly, and a stream is not `Sendable`, but sources are only ever compared by
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

  /// One subscription, and the source it was made to with ``subscribe(to:_:)``, if any.
  private struct Entry {
    let subscription: Subscription
    // The source's address, compared first, so that no weak reference is loaded (which could
    // release the last strong one, and run a deinit, under the lock) unless it may match.
    let sourceID: ObjectIdentifier?
    weak var source: AnyObject?

    /// Whether this entry was made to `source`, which the caller keeps alive. A freed source
    /// whose address was reused never matches: its weak reference reads nil.
    func wasMade(to source: AnyObject) -> Bool {
      sourceID == ObjectIdentifier(source) && self.source === source
    }
  }

  /// Creates an empty bag.
  public init() {}

  deinit {
    for entry in state.withLock({ $0.entries }) { entry.subscription.unsubscribe() }
  }

  /// Adds `subscription`, to be ended with the bag.
  ///
  /// A subscription ended elsewhere (by its own `unsubscribe()`) leaves the bag: ``count`` no
  /// longer counts it, and the bag lets go of it by the time it has doubled in size.
  public func insert(_ subscription: Subscription) {
    insert(subscription, source: nil)
  }

  /// Subscribes `next` to `source` and keeps the subscription, to be ended with the bag or by
  /// ``unsubscribe(from:)``.
  ///
  /// `next` runs where `source` delivers, as with `source.subscribe(next)`. (ZCRMailbox's
  /// `messageQueue` has no counterpart: a subscriber runs on the actor it was written on; see
  /// the Concurrency guide.)
  ///
  /// - Returns: The subscription, which you may also end alone.
  @discardableResult
  public func subscribe<T>(
    to source: ValueObservable<T>,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    let subscription = source.subscribe(next)
    insert(subscription, source: source)
    return subscription
  }

  /// Ends the subscriptions that ``subscribe(to:_:)`` made to `source`.
  ///
  /// A source is the observable object passed in: `emitter.map { ... }` is another source than
  /// `emitter`. The bag does not keep its sources alive, and a source that has been deallocated
  /// matches nothing, even when a new stream has been given its address.
  public func unsubscribe<O>(from source: IndefiniteObservable<O>) {
    let ended: [Subscription] = state.withLock { state in
      var ended: [Subscription] = []
      state.entries.removeAll { entry in
        guard entry.wasMade(to: source) else { return false }
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

  private func insert(_ subscription: Subscription, source: AnyObject?) {
    let entry = Entry(
      subscription: subscription, sourceID: source.map(ObjectIdentifier.init), source: source)
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
  /// Adds the subscription to `bag`, which ends it when the bag is deallocated.
  ///
  /// ```swift
  /// let bag = SubscriptionBag()
  /// let ticks = Emitter<Int>()
  /// ticks.subscribe { print($0) }.store(in: bag)
  /// ```
  public func store(in bag: SubscriptionBag) {
    bag.insert(self)
  }
}
