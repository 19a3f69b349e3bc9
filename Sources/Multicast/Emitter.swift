import Dispatch
import IndefiniteObservable

/// A source of values that many subscribers share and that its owner sends values into.
///
/// ```swift
/// let downloads = Emitter<Int>()
/// var seen: [Int] = []
/// downloads.subscribe { seen.append($0) }
/// downloads.send(1)
/// downloads.send(2)
/// // seen == [1, 2]
/// ```
///
/// An emitter is a `ValueObservable`: operators and code that takes a stream work with it.
/// Hand out `emitter as ValueObservable<T>` to let others subscribe but not send. Beside the
/// plain `subscribe(_:)`, a subscription can ask for a delivery queue, the last
/// value at once (`replayingLast`), a limit on its number of values, or to be bound to an owner
/// object and end when the owner is deallocated.
///
/// - Threading: an emitter is not `Sendable`. It lives in one isolation (an actor, the main
///   actor, or one task's region), with its subscribers and the code that sends, and the compiler
///   checks it: a subscriber closure therefore runs where it was written, synchronously, with no
///   allocation. To send from another thread, hop to the emitter's isolation first
///   (`await MainActor.run { ... }`, a `Task { @MainActor in ... }`), or use a
///   ``SharedEmitter``, whose subscribers each say where they run. Queue subscribers
///   (`subscribe(on:)`) take `@Sendable` closures, since they run on the queue.
/// - Unsubscribing: once `unsubscribe()` returns, no delivery to that subscription
///   begins, including values already waiting on its queue. A delivery that had begun on another
///   thread may still be running.
/// - Re-entrancy: a subscriber may send, subscribe or unsubscribe from its callback. No callback
///   runs while an internal lock is held, so nothing deadlocks. A value sent from a callback is
///   delivered at once to every subscriber, before the outer send goes on (as Combine does):
///   subscribers after the sending one see the inner value first. A subscriber added during a
///   send does not receive that send's value; one removed during it and not yet reached does
///   not either.
/// - Lifetime: the emitter keeps its subscribers' closures until they unsubscribe, reach their
///   limit or lose their owner; then it releases them. A subscription does not keep the emitter
///   alive, and unsubscribing after the emitter is gone does nothing. The emitter keeps the last
///   value sent (see ``lastValue``), for subscribers that ask to replay it, unless it was made
///   with ``init(keepsLastValue:)`` and `false`.
public final class Emitter<T>: ValueObservable<T> {
  @usableFromInline let storage: MulticastStorage<T>

  /// Ends every subscription and releases the last value: the subscribers' closures are released
  /// now, and a subscription unsubscribed later finds nothing to end.
  deinit {
    storage.close()
  }

  /// Creates an emitter with no subscribers and no last value, that keeps the last value sent.
  public convenience init() {
    self.init(keepsLastValue: true)
  }

  /// Creates an emitter with no subscribers, that keeps the last value sent or keeps none.
  ///
  /// An emitter that keeps no last value lets go of each value as soon as its send returns
  /// (values waiting on a subscriber's queue are kept until the queue runs them): use it when
  /// values hold objects or memory that should not outlive their delivery.
  ///
  /// ```swift
  /// final class Frame: Sendable {}
  /// let frames = Emitter<Frame>(keepsLastValue: false)
  /// frames.send(Frame())  // released when send returns
  /// // frames.lastValue == nil
  /// ```
  ///
  /// - Parameter keepsLastValue: Whether the emitter keeps the last value sent, for
  ///   ``lastValue`` and for subscribers that ask to replay it. When false, ``lastValue`` is
  ///   always nil and `replayingLast: true` replays nothing; everything else is unchanged.
  public init(keepsLastValue: Bool) {
    let storage = MulticastStorage<T>(kind: .emitter, keepsLast: keepsLastValue)
    self.storage = storage
    super.init { observer in storage.subscribe(.plain(observer.next)) }
  }

  /// Delivers `value` to every current subscriber and keeps it as the last value (unless the
  /// emitter keeps none: see ``init(keepsLastValue:)``).
  ///
  /// Synchronous subscribers have been called when this returns (on this thread, in the order
  /// they subscribed); queue subscribers have their delivery enqueued. Callable from any
  /// thread, including from a subscriber (see the type's re-entrancy rule). It allocates nothing
  /// unless a subscriber has a queue or a limited subscription ends during it.
  @inlinable
  public func send(_ value: T) {
    storage.send(value)
  }

  /// Subscribes `next`, optionally starting with the last value sent or stopping after a number
  /// of values. `next` runs synchronously on the sending thread.
  ///
  /// ```swift
  /// let status = Emitter<String>()
  /// status.send("idle")
  /// status.subscribe(replayingLast: true, limit: 1) { print($0) }  // prints "idle", then ends
  /// ```
  ///
  /// - Parameters:
  ///   - replayingLast: Deliver the last value sent, if any, before this returns. Values sent
  ///     from other threads meanwhile arrive after it, never before.
  ///   - limit: End the subscription after this many values (the replayed one included); nil
  ///     for no limit. A limit of zero or less delivers nothing.
  ///   - next: Called with each value.
  /// - Returns: The subscription; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    replayingLast: Bool = false,
    limit: Int? = nil,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    Subscription(storage.subscribe(.plain(next), replay: replayingLast, limit: limit))
  }

  /// Subscribes `next` bound to `owner`: `next` receives the owner with each value, the owner
  /// is held weakly, and the subscription ends when the owner is deallocated.
  ///
  /// ```swift
  /// final class Badge {
  ///   var count = 0
  /// }
  /// let messages = Emitter<String>()
  /// let badge = Badge()
  /// messages.subscribe(badge) { badge, _ in badge.count += 1 }
  /// ```
  ///
  /// Attach and forget: no need to keep the subscription or to unsubscribe in `deinit`. Use the
  /// `owner` argument in `next`, not a strong capture of the owner, or the emitter keeps the
  /// owner alive. A lost owner's subscription is never called again, and is removed at the next
  /// send or ``subscriberCount``, or by a subscribe once the number of subscribers has doubled
  /// since the last such sweep (so that subscribing costs the same with many subscribers).
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:_:)``.
  @discardableResult
  public func subscribe<Owner: AnyObject>(
    _ owner: Owner,
    replayingLast: Bool = false,
    limit: Int? = nil,
    _ next: @escaping (Owner, T) -> Void
  ) -> Subscription {
    Subscription(storage.subscribe(.bound(to: owner, next), replay: replayingLast, limit: limit))
  }

  /// Ends every subscription bound to `owner`.
  ///
  /// No delivery to them begins after this returns; their `Subscription` objects are left as
  /// they are (unsubscribing them later does nothing).
  public func unsubscribe(_ owner: AnyObject) {
    let id = ObjectIdentifier(owner)
    storage.endAll { $0.ownerID == id }
  }

  /// Ends every subscription: no delivery to any of them begins after this returns.
  public func unsubscribeAll() {
    storage.endAll()
  }

  /// The last value sent, or nil before the first send; always nil for an emitter made with
  /// `keepsLastValue: false`.
  ///
  /// The emitter keeps it alive until the next send replaces it or the emitter is deallocated.
  public var lastValue: T? {
    storage.read().value
  }

  /// The number of subscriptions that have not ended, for diagnostics.
  ///
  /// Subscriptions whose owner is gone are removed first. Another thread may change the number
  /// as soon as it is read.
  public var subscriberCount: Int {
    storage.subscriberCount
  }

  /// The number of values sent since the emitter was created or ``resetSendCount()`` was
  /// called, for diagnostics.
  public var sendCount: Int {
    storage.locked.withLock { $0.sendCount }
  }

  /// Sets ``sendCount`` back to zero.
  public func resetSendCount() {
    storage.locked.withLock { $0.sendCount = 0 }
  }

  /// The number of subscribers above which subscribing fails an assertion; 100 by default.
  ///
  /// A guard against runaway subscription (subscribing in a loop, or never unsubscribing): in a
  /// debug build, subscribing past the limit stops the program with a message that names the
  /// emitter's type and the count; in a release build the check does nothing. Raise it for
  /// emitters that legitimately have many subscribers; `Int.max` turns the check off.
  ///
  /// Setting it takes any value, even one below ``subscriberCount`` (then the next subscribe
  /// fails the assertion); to have such a limit refused at once, call ``setMaxSubscribers(_:)``.
  public var maxSubscribers: Int {
    get { storage.locked.withLock { $0.maxSubscribers } }
    set { storage.locked.withLock { $0.maxSubscribers = newValue } }
  }

  /// Sets ``maxSubscribers`` to `limit`, or throws if the emitter already has more subscribers
  /// than that, leaving the limit as it was.
  ///
  /// Subscriptions whose owner is gone are removed first, and not counted. Callable from the
  /// emitter's isolation, like every method of the emitter.
  ///
  /// - Throws: ``MaxSubscribersBelowCount``, with the count, when `limit` is below it (a
  ///   negative `limit` always is).
  public func setMaxSubscribers(_ limit: Int) throws(MaxSubscribersBelowCount) {
    try storage.setMaxSubscribers(limit)
  }
}

extension Emitter where T: Sendable {
  /// Subscribes `next` to be called on `queue`, optionally starting with the last value sent
  /// or stopping after a number of values.
  ///
  /// Each value is delivered with `queue.async`; on a serial queue, values from one sending
  /// thread arrive in order, after the replayed value. A value waiting on the queue is dropped
  /// if the subscription has ended by the time the queue runs it.
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:_:)``; a limit counts the values
  ///   enqueued.
  @discardableResult
  public func subscribe(
    on queue: DispatchQueue,
    replayingLast: Bool = false,
    limit: Int? = nil,
    _ next: @escaping @Sendable (T) -> Void
  ) -> Subscription {
    Subscription(
      storage.subscribe(.plain(next), queue: queue, replay: replayingLast, limit: limit))
  }

  /// Subscribes `next` bound to `owner` (see ``subscribe(_:replayingLast:limit:_:)``), to be
  /// called on `queue` (see ``subscribe(on:replayingLast:limit:_:)``).
  ///
  /// The owner is checked on the queue, right before each call.
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    on queue: DispatchQueue,
    replayingLast: Bool = false,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Owner, T) -> Void
  ) -> Subscription {
    Subscription(
      storage.subscribe(
        .bound(to: owner, next), queue: queue, replay: replayingLast, limit: limit))
  }
}

extension Emitter where T == Void {
  /// Sends an event that carries no value: `send()` for `send(())`.
  ///
  /// ```swift
  /// let didTap = Emitter<Void>()
  /// didTap.subscribe { print("tapped") }
  /// didTap.send()
  /// ```
  @inlinable
  public func send() {
    send(())
  }
}
