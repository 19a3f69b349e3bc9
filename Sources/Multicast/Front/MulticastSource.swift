import Dispatch
import IndefiniteObservable

/// What every multicast source of this module offers to those who subscribe: ``Emitter``,
/// ``CurrentValue``, ``SendableEmitter``, ``SendableCurrentValue``, and their read-only views
/// (``ReadOnlySource``). Every subscribing spelling that these share is written once, here and in
/// the two refinements, so that no source and no view falls behind another; what only the
/// source's owner may do (send, end every subscription, change the limit) is on
/// ``MulticastSubject``, which the views do not adopt.
///
/// Which spellings each kind offers, and why, is the table "One front for every source" in the
/// Multicast catalog.
///
/// A single-isolation source's plain `subscribe` already runs on the sending thread, with a
/// closure that need not be `@Sendable`; it takes `on: .sendingThread` too, so that code moves
/// between the kinds unchanged. The conformance is the module's own: a type outside it cannot
/// make the storage the requirements ask for.
public protocol MulticastSource<Value> {
  /// The type of the values.
  associatedtype Value

  /// Whether a subscription starts with the last value unless it says `replayingLast: false`:
  /// false for emitters, true for current values.
  static var replaysLastByDefault: Bool { get }

  /// The source's subscribers and last value: the module's own, not for use outside it.
  var _storage: MulticastStorage<Value> { get }

  /// The object that owns ``_storage``: the source itself, or a view's source. The module's
  /// own, not for use outside it (a ``SubscriptionBag`` knows a source by it).
  var _owner: AnyObject { get }
}

extension MulticastSource where Self: AnyObject {
  /// The source itself: the module's own, not for use outside it.
  public var _owner: AnyObject { self }
}

extension MulticastSource {
  /// Ends every subscription bound to `owner` (SwiftEvents' `unbind`): what a subscriber that
  /// subscribed with itself as the owner calls to stop, on the source or on its read-only view.
  ///
  /// No delivery to them begins after this returns; their `Subscription` objects are left as
  /// they are (unsubscribing them later does nothing). Callable wherever the source is. It ends
  /// only subscriptions bound to `owner`, whoever made them: ending every subscriber's is the
  /// owner's ``MulticastSubject/unsubscribeAll()``.
  public func unsubscribe(_ owner: AnyObject) {
    let id = ObjectIdentifier(owner)
    _storage.endAll { $0.ownerID == id }
  }

  /// The source, its number of subscribers and each subscription, one a line, for debugging: its
  /// number in subscription order, the queue it is delivered on, its owner's type (or "owner
  /// gone") and the values left to a limited one. Uber Signals' `debugDescription`.
  ///
  /// ```
  /// SendableEmitter<Int>: 2 subscribers
  ///   #1
  ///   #3, on queue downloads, owner Uploader, 1 values left
  /// ```
  ///
  /// Any thread may read it; it reads every owner, so it is not for a loop.
  public var debugDescription: String {
    _storage.describe()
  }

  /// The number of subscriptions that have not ended, for diagnostics.
  ///
  /// Subscriptions whose owner is gone are removed first (which reads every owner: not for a
  /// loop). Another thread may change the number as soon as it is read.
  public var subscriberCount: Int {
    _storage.subscriberCount
  }

  /// The number of values sent (for a current value, writes delivered: skipped equal writes are
  /// not counted) since the source was created or its owner called
  /// ``MulticastSubject/resetSendCount()``, for diagnostics.
  public var sendCount: Int {
    _storage.locked.withLock { $0.sendCount }
  }
}

extension MulticastSource where Value: Sendable {
  /// Subscribes `next` to be called on `target`, a queue or the sending thread, optionally
  /// starting with the last value (the current value of a current value, unless
  /// `replayingLast` is false) or stopping after a number of values.
  ///
  /// On a queue, each value is delivered with `queue.async`; on a serial queue, values from one
  /// sending thread arrive in order, after the replayed value, and a value waiting on the queue
  /// is dropped if the subscription has ended by the time the queue runs it. On
  /// `.sendingThread`, `next` runs synchronously before `send` returns, the fastest delivery
  /// (see ``SynchronousDelivery``); for a single-isolation source that is where its plain
  /// `subscribe` runs too, with a closure that need not be `@Sendable`.
  ///
  /// ```swift
  /// let downloads = Emitter<Int>()
  /// downloads.subscribe(on: .global()) { print($0) }
  /// ```
  ///
  /// - Parameters:
  ///   - target: Where `next` runs: a `DispatchQueue` or `.sendingThread`.
  ///   - replayingLast: Deliver the last value, if any, first; false for new values only. The
  ///     default is ``replaysLastByDefault``: false for emitters, true for current values.
  ///   - limit: End the subscription after this many values delivered (the replayed one
  ///     included), counted where `next` runs: on a queue, as the queue runs them, so the
  ///     subscription lasts until its last value is delivered; nil for no limit. A limit of
  ///     zero or less delivers nothing.
  ///   - next: Called with each value, on `target`.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    on target: some DeliveryTarget,
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Value) -> Void
  ) -> SendableSubscription {
    SendableSubscription(
      _storage.subscribe(on: target, replay: replayingLast, limit: limit, next))
  }

  /// Subscribes `next` bound to `owner`, to be called on `target` (see
  /// ``subscribe(on:replayingLast:limit:_:)``): `next` receives the owner with each value, the
  /// owner is held weakly, and the subscription ends when the owner is deallocated.
  ///
  /// On a queue, the owner is checked there, right before each call.
  ///
  /// - Parameters: See ``subscribe(on:replayingLast:limit:_:)``; `owner` is the object the
  ///   subscription is bound to.
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    on target: some DeliveryTarget,
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Owner, Value) -> Void
  ) -> SendableSubscription {
    SendableSubscription(
      _storage.subscribe(owner, on: target, replay: replayingLast, limit: limit, next))
  }
}

extension Emitter: CustomDebugStringConvertible {}
extension CurrentValue: CustomDebugStringConvertible {}
extension SendableEmitter: CustomDebugStringConvertible {}
extension SendableCurrentValue: CustomDebugStringConvertible {}
extension ReadOnlySource: CustomDebugStringConvertible {}
