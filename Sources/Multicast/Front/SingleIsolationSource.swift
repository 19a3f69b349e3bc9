import IndefiniteObservable

/// A multicast source that lives in one isolation with its subscribers: ``Emitter`` and
/// ``CurrentValue``. Its plain subscribers run synchronously on the sending thread, which is the
/// subscriber's own isolation, so they need not be `Sendable`.
public protocol SingleIsolationSource<Value>: MulticastSource {}

extension SingleIsolationSource {
  /// Subscribes `next`, optionally starting with the last value (a current value's current
  /// value, unless `replayingLast` is false) or stopping after a number of values. `next` runs
  /// synchronously on the sending thread.
  ///
  /// ```swift
  /// let status = Emitter<String>()
  /// status.send("idle")
  /// status.subscribe(replayingLast: true, limit: 1) { print($0) }  // prints "idle", then ends
  /// ```
  ///
  /// A handler that must run only once says `limit: 1`: it cannot end its own subscription
  /// from its first call, because a replayed value is delivered inside `subscribe`, before the
  /// subscription is returned.
  ///
  /// - Parameters:
  ///   - replayingLast: Deliver the last value, if any, before this returns; false for new
  ///     values only. The default is ``MulticastSource/replaysLastByDefault``: false for
  ///     emitters, true for current values. Values sent from other threads meanwhile arrive
  ///     after it, never before.
  ///   - limit: End the subscription after this many values (the replayed one included); nil
  ///     for no limit. A limit of zero or less delivers nothing.
  ///   - next: Called with each value.
  /// - Returns: The subscription; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    _ next: @escaping (Value) -> Void
  ) -> Subscription {
    Subscription(_storage.subscribe(.plain(next), replay: replayingLast, limit: limit))
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
  /// `owner` argument in `next`, not a strong capture of the owner, or the source keeps the
  /// owner alive. A lost owner's subscription is never called again, and is removed at the next
  /// send or ``MulticastSource/subscriberCount``, or by a subscribe once the number of
  /// subscribers has doubled since the last such sweep (so that subscribing costs the same with
  /// many subscribers); ``MulticastSubject/unsubscribe(_:)`` ends an owner's subscriptions at
  /// once.
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:_:)``; `owner` is the object the
  ///   subscription is bound to.
  @discardableResult
  public func subscribe<Owner: AnyObject>(
    _ owner: Owner,
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    _ next: @escaping (Owner, Value) -> Void
  ) -> Subscription {
    Subscription(_storage.subscribe(.bound(to: owner, next), replay: replayingLast, limit: limit))
  }
}
