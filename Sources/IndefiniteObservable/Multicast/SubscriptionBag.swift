import Dispatch

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
/// one source with ``unsubscribe(from:)``, and to have values delivered on the bag's queue.
///
/// - Threading: every method may be called from any thread, at once. Unsubscribing runs the
///   subscriptions' disconnects on the calling thread, outside the bag's lock, so a disconnect
///   or a subscriber may use the bag.
/// - Lifetime: the bag keeps its subscriptions (and what their disconnects keep, such as the
///   subscribers of a cold stream) until it ends them; it does not keep the sources. `deinit`
///   calls ``unsubscribeAll()``.
public final class SubscriptionBag: @unchecked Sendable {
  // `@unchecked Sendable`: `subscriptions` is read and written only under `lock`; `queue` is
  // immutable.
  private let lock = Lock()
  private var subscriptions: [(source: ObjectIdentifier?, subscription: Subscription)] = []

  /// The queue on which subscriptions made with ``subscribe(to:_:)`` receive their values; nil
  /// for the thread the source delivers on.
  public let queue: DispatchQueue?

  /// Creates an empty bag.
  ///
  /// - Parameter queue: Where subscriptions made with ``subscribe(to:_:)`` receive their values
  ///   (ZCRMailbox's `messageQueue`); nil delivers them where the source sends them. It does not
  ///   change subscriptions added with ``insert(_:)``.
  public init(queue: DispatchQueue? = nil) {
    self.queue = queue
  }

  deinit {
    for entry in subscriptions { entry.subscription.unsubscribe() }
  }

  /// Adds `subscription`, to be ended with the bag.
  public func insert(_ subscription: Subscription) {
    insert(subscription, source: nil)
  }

  /// Subscribes `next` to `source`, on the bag's queue if it has one, and keeps the
  /// subscription, to be ended with the bag or by ``unsubscribe(from:)``.
  ///
  /// With a queue, each value is delivered with `queue.async`, and a value waiting on the queue
  /// is dropped if the subscription has ended by the time the queue runs it.
  ///
  /// - Returns: The subscription, which you may also end alone.
  @discardableResult
  public func subscribe<T: Sendable>(
    to source: ValueObservable<T>,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    let subscription: Subscription
    if let queue {
      let gate = DeliveryGate(next)
      let upstream = source.subscribe { value in
        queue.async { @Sendable in gate.pass(value) }
      }
      subscription = Subscription {
        gate.close()
        upstream.unsubscribe()
      }
    } else {
      subscription = source.subscribe(next)
    }
    insert(subscription, source: ObjectIdentifier(source))
    return subscription
  }

  /// Ends the subscriptions that ``subscribe(to:_:)`` made to `source`.
  ///
  /// A source is the observable object passed in: `emitter.map { ... }` is another source than
  /// `emitter`.
  public func unsubscribe<O>(from source: IndefiniteObservable<O>) {
    let id = ObjectIdentifier(source)
    let ended: [Subscription] = lock.withLock {
      var ended: [Subscription] = []
      subscriptions.removeAll { entry in
        guard entry.source == id else { return false }
        ended.append(entry.subscription)
        return true
      }
      return ended
    }
    for subscription in ended { subscription.unsubscribe() }
  }

  /// Ends every subscription in the bag and empties it. The bag can be used again afterwards.
  public func unsubscribeAll() {
    let ended = lock.withLock {
      let ended = subscriptions
      subscriptions = []
      return ended
    }
    for entry in ended { entry.subscription.unsubscribe() }
  }

  /// The number of subscriptions in the bag (ended by hand or not).
  public var count: Int {
    lock.withLock { subscriptions.count }
  }

  private func insert(_ subscription: Subscription, source: ObjectIdentifier?) {
    lock.withLock { subscriptions.append((source, subscription)) }
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

/// Passes values to a subscriber until closed; used to drop deliveries that were waiting on a
/// queue when their subscription ended.
///
/// `@unchecked Sendable`: `isOpen` is read and written only under `lock`; `next` is immutable
/// and is called on the queue that the subscriber asked for.
private final class DeliveryGate<T>: @unchecked Sendable {
  private let lock = Lock()
  private var isOpen = true
  private let next: (T) -> Void

  init(_ next: @escaping (T) -> Void) {
    self.next = next
  }

  func pass(_ value: T) {
    guard lock.withLock({ isOpen }) else { return }
    next(value)
  }

  func close() {
    lock.withLock { isOpen = false }
  }
}
