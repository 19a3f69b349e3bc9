import Synchronization

/// The connection between one observer and its stream, returned by `subscribe`.
///
/// ``unsubscribe()`` calls the stream's disconnect exactly once, however often and from however
/// many threads it is called, then releases the disconnect chain (and with it everything the
/// chain kept alive, such as upstream observables of an operator chain).
///
/// Dropping a subscription does **not** unsubscribe: subscriptions are attach-and-forget. A
/// stream stays connected until ``unsubscribe()`` is called or its source lets go of the
/// observer. Keep the subscription (for example in an array) if you will want to stop.
///
/// - Threading: `unsubscribe()` may be called from any thread; the disconnect closure runs on the
///   calling thread, after an internal lock has been released, so a disconnect may itself call
///   `unsubscribe()` (it returns at once). Whether a given disconnect may run on another thread
///   than the one that subscribed is up to its stream; the producers of this package allow it.
public final class Subscription: @unchecked Sendable {
  // `@unchecked Sendable` (one of the four hand-proved claims of the core and Multicast): after
  // `init`, `disconnect` is read and cleared only by the one call of `unsubscribe()` that wins the
  // exchange of `ended`; no other thread touches it. No lock: a subscription is a single small
  // allocation. The disconnect itself is not `Sendable`; calling it on another thread is the
  // contract each stream documents (the package's own allow it). A breach shows as a double
  // call in SubscriptionTests.concurrentUnsubscribesCallDisconnectOnce, and as a race under
  // ThreadSanitizer (`.ci/run`) in MulticastStressTests.
  private let ended = Atomic(false)
  private var disconnect: Disconnect?

  /// Creates a subscription that will call `disconnect` on the first ``unsubscribe()``.
  public init(_ disconnect: @escaping () -> Void) {
    self.disconnect = disconnect
    LiveResources.opened(.subscriptions)
  }

  deinit { LiveResources.closed(.subscriptions) }

  /// Disconnects the stream: the first call runs disconnect; later calls do nothing.
  ///
  /// When the stream's source honours its disconnect synchronously, as every source in this
  /// package does, no value reaches the observer after this method returns.
  public func unsubscribe() {
    guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
    // `if let` moves the closure out; calling `take()` through `?()` retained it for the call.
    if let disconnect = self.disconnect.take() { disconnect() }
  }

  /// Whether ``unsubscribe()`` has been called.
  public var isUnsubscribed: Bool {
    ended.load(ordering: .acquiring)
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
