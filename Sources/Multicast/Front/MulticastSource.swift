import Dispatch
import IndefiniteObservable

/// A multicast source of this module: ``Emitter``, ``CurrentValue``, ``SendableEmitter`` or
/// ``SendableCurrentValue``. Every spelling that these sources share is written once, here and in
/// the two refinements, so that no source falls behind another:
///
/// Which spellings each kind offers, and why, is the table "One front for every source" in the
/// Multicast catalog.
///
/// A single-isolation source needs no `.sendingThread`: its plain `subscribe` already runs on
/// the sending thread. The conformance is the module's own: a type outside it cannot make the
/// storage the requirements ask for.
public protocol MulticastSource<Value>: AnyObject {
  /// The type of the values.
  associatedtype Value

  /// Whether a subscription starts with the last value unless it says `replayingLast: false`:
  /// false for emitters, true for current values.
  static var replaysLastByDefault: Bool { get }

  /// The source's subscribers and last value: the module's own, not for use outside it.
  var _storage: MulticastStorage<Value> { get }
}

extension MulticastSource {
  /// Ends every subscription bound to `owner` (SwiftEvents' `unbind`).
  ///
  /// No delivery to them begins after this returns; their `Subscription` objects are left as
  /// they are (unsubscribing them later does nothing). Callable wherever the source is.
  public func unsubscribe(_ owner: AnyObject) {
    let id = ObjectIdentifier(owner)
    _storage.endAll { $0.ownerID == id }
  }

  /// Ends every subscription (SwiftEvents' `unbindAll`): no delivery to any of them begins after
  /// this returns. The last value is kept, and new subscriptions may follow.
  public func unsubscribeAll() {
    _storage.endAll()
  }

  /// The number of subscriptions that have not ended, for diagnostics.
  ///
  /// Subscriptions whose owner is gone are removed first (which reads every owner: not for a
  /// loop). Another thread may change the number as soon as it is read.
  public var subscriberCount: Int {
    _storage.subscriberCount
  }

  /// The number of values sent (for a current value, writes delivered: skipped equal writes are
  /// not counted) since the source was created or ``resetSendCount()`` was called, for
  /// diagnostics.
  public var sendCount: Int {
    _storage.locked.withLock { $0.sendCount }
  }

  /// Sets ``sendCount`` back to zero. A send on another thread at the same time may be counted
  /// before or after.
  public func resetSendCount() {
    _storage.locked.withLock { $0.sendCount = 0 }
  }

  /// The number of subscribers above which subscribing fails an assertion; 100 by default.
  ///
  /// A guard against runaway subscription (subscribing in a loop, or never unsubscribing): in a
  /// debug build, subscribing past the limit stops the program with a message that names the
  /// source's type and the count; in a release build the check does nothing. Raise it for
  /// sources that legitimately have many subscribers; `Int.max` turns the check off.
  ///
  /// Setting it takes any value, even one below ``subscriberCount`` (then the next subscribe
  /// fails the assertion); to have such a limit refused at once, call ``setMaxSubscribers(_:)``.
  public var maxSubscribers: Int {
    get { _storage.locked.withLock { $0.maxSubscribers } }
    set { _storage.locked.withLock { $0.maxSubscribers = newValue } }
  }

  /// Sets ``maxSubscribers`` to `limit`, or throws if the source already has more subscribers
  /// than that, leaving the limit as it was.
  ///
  /// Subscriptions whose owner is gone are removed first, and not counted. The check and the
  /// change are one step under the source's lock.
  ///
  /// - Throws: ``MaxSubscribersBelowCount``, with the count, when `limit` is below it (a
  ///   negative `limit` always is).
  public func setMaxSubscribers(_ limit: Int) throws(MaxSubscribersBelowCount) {
    try _storage.setMaxSubscribers(limit)
  }
}

extension MulticastSource where Value: Sendable {
  /// Subscribes `next` to be called on `queue`, optionally starting with the last value (the
  /// current value of a current value, unless `replayingLast` is false) or stopping after a
  /// number of values.
  ///
  /// Each value is delivered with `queue.async`; on a serial queue, values from one sending
  /// thread arrive in order, after the replayed value. A value waiting on the queue is dropped
  /// if the subscription has ended by the time the queue runs it.
  ///
  /// ```swift
  /// let downloads = Emitter<Int>()
  /// downloads.subscribe(on: .global()) { print($0) }
  /// ```
  ///
  /// - Parameters:
  ///   - queue: Where `next` runs.
  ///   - replayingLast: Deliver the last value, if any, first; false for new values only. The
  ///     default is ``replaysLastByDefault``: false for emitters, true for current values.
  ///   - limit: End the subscription after this many values enqueued (the replayed one
  ///     included); nil for no limit. A limit of zero or less delivers nothing.
  ///   - next: Called with each value, on `queue`.
  /// - Returns: The subscription; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    on queue: DispatchQueue,
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    Subscription(
      _storage.subscribe(.plain(next), queue: queue, replay: replayingLast, limit: limit))
  }

  /// Subscribes `next` bound to `owner`, to be called on `queue` (see
  /// ``subscribe(on:replayingLast:limit:_:)``): `next` receives the owner with each value, the
  /// owner is held weakly, and the subscription ends when the owner is deallocated.
  ///
  /// The owner is checked on the queue, right before each call.
  ///
  /// - Parameters: See ``subscribe(on:replayingLast:limit:_:)``; `owner` is the object the
  ///   subscription is bound to.
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    on queue: DispatchQueue,
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Owner, Value) -> Void
  ) -> Subscription {
    Subscription(
      _storage.subscribe(
        .bound(to: owner, next), queue: queue, replay: replayingLast, limit: limit))
  }
}

extension MulticastSource where Value == Void {
  /// Sends an event that carries no value: `send()` for `send(())` (for a current value of
  /// `Void`, a write).
  ///
  /// ```swift
  /// let didTap = Emitter<Void>()
  /// didTap.subscribe { print("tapped") }
  /// didTap.send()
  /// ```
  ///
  /// As the source's own `send(_:)`: for a sendable source, a subscriber bound to the caller's
  /// actor (`isolation`, which the compiler passes) has been called when this returns.
  public func send(isolation: isolated (any Actor)? = #isolation) {
    SendingIsolation.with(isolation) { _storage.send(()) }
  }
}
