import Dispatch
import IndefiniteObservable

/// A value that can be read, written and observed: each subscription
/// receives the current value at once, then every change.
///
/// ```swift
/// let volume = CurrentValue(0.5)
/// var heard: [Double] = []
/// volume.subscribe { heard.append($0) }  // receives 0.5 at once
/// volume.value = 0.8
/// // heard == [0.5, 0.8]
/// ```
///
/// It is a `ValueObservable` whose every subscription starts with the current value:
/// operators compose with it, and its `subscribe(_:)` is the plain way in. Bind
/// it to an object in one line with an owner-bound subscription, which ends when the object is
/// deallocated:
///
/// ```swift
/// final class Label {
///   var text = ""
/// }
/// let title = CurrentValue("Inbox")
/// let label = Label()
/// title.subscribe(label) { label, text in label.text = text }
/// ```
///
/// Every subscribe form takes the options of ``Emitter``'s, with the same labels in the same
/// order: an owner, a queue (`on:`), `replayingLast:` (true by default here: false subscribes to
/// new values only) and `limit:` (`limit: 1` runs a handler once, the current value included).
/// ``unsubscribe(_:)`` and ``unsubscribeAll()`` end subscriptions by owner or all at once.
///
/// By default every write is delivered, equal or not. For `Equatable` values,
/// ``init(_:skipsEqualWrites:)`` makes a holder that skips a write equal to the current value;
/// that also makes two holders bound to each other settle instead of looping.
///
/// - Threading: like ``Emitter``, a holder is not `Sendable`: it lives in one isolation with its
///   subscribers and writers, so its subscribers run where they were written, synchronously.
/// - The rules of ``Emitter`` apply: once `unsubscribe()` returns no delivery to that
///   subscription begins; subscribers may write, subscribe and unsubscribe re-entrantly (a write
///   from a subscriber is delivered at once, before the outer write goes on); no callback runs
///   while an internal lock is held, including `==` of ``init(_:skipsEqualWrites:)`` and the
///   body of ``update(_:)``.
/// - Lifetime: the holder keeps its value and its subscribers' closures (until they
///   unsubscribe, reach their limit or lose their owner); a subscription does not keep the
///   holder alive.
public final class CurrentValue<T>: ValueObservable<T> {
  @usableFromInline let storage: MulticastStorage<T>

  /// Ends every subscription and releases the last value: the subscribers' closures are released
  /// now, and a subscription unsubscribed later finds nothing to end.
  deinit {
    storage.close()
  }
  @usableFromInline let isEqual: ((T, T) -> Bool)?

  /// Creates a holder of `value` that delivers every write.
  public convenience init(_ value: T) {
    self.init(value, isEqual: nil)
  }

  /// Creates a holder of `value` that, when `skipsEqualWrites` is true, ignores a write equal to
  /// the current value: it is neither stored nor delivered nor counted.
  ///
  /// `==` is called on the writing thread, outside any lock.
  public convenience init(_ value: T, skipsEqualWrites: Bool) where T: Equatable {
    self.init(value, isEqual: skipsEqualWrites ? { $0 == $1 } : nil)
  }

  private init(_ value: T, isEqual: ((T, T) -> Bool)?) {
    let storage = MulticastStorage<T>(kind: .currentValue, last: value)
    self.storage = storage
    self.isEqual = isEqual
    super.init { observer in storage.subscribe(.plain(observer.next), replay: true) }
  }

  /// The current value. Setting it delivers the new value to every subscriber (unless the
  /// holder skips equal writes and it equals the current value).
  ///
  /// A write from a subscriber is stored and delivered at once, before the outer write goes
  /// on; ``update(_:)`` makes a read-modify-write that such writes cannot interleave.
  @inlinable
  public var value: T {
    get { storage.read().value! }
    set {
      guard let isEqual else { return storage.send(newValue) }
      while true {
        let (current, version) = storage.read()
        if isEqual(current!, newValue) { return }
        if storage.send(newValue, ifVersion: version) { return }
      }
    }
  }

  /// Changes the value with `body`, atomically: no other write is lost between the read and
  /// the write.
  ///
  /// ```swift
  /// let hits = CurrentValue(0)
  /// hits.update { $0 += 1 }
  /// ```
  ///
  /// `body` runs outside any lock, on the calling thread. When another thread writes between
  /// its read and its write, `body` runs again on the new value, so it must have no other
  /// effect than changing its argument.
  public func update(_ body: (inout T) -> Void) {
    while true {
      let (current, version) = storage.read()
      var value = current!
      body(&value)
      if let isEqual, isEqual(current!, value) { return }
      if storage.send(value, ifVersion: version) { return }
    }
  }

  /// Subscribes `next`, which receives the current value at once (unless `replayingLast` is
  /// false), then every change; optionally stopping after a number of values. `next` runs
  /// synchronously on the writing thread.
  ///
  /// A handler that must run only once says `limit: 1`: it cannot end its own subscription
  /// from its first call, because the current value is delivered inside `subscribe`, before
  /// the subscription is returned.
  ///
  /// ```swift
  /// let status = CurrentValue("idle")
  /// status.subscribe(limit: 1) { print($0) }  // prints "idle", then ends
  /// status.subscribe(replayingLast: false) { print($0) }  // prints only later writes
  /// status.value = "busy"  // prints "busy" once
  /// ```
  ///
  /// - Parameters:
  ///   - replayingLast: Deliver the current value before this returns (the default); false
  ///     for new values only, the writes that follow. Values written from other threads
  ///     meanwhile arrive after the current value, never before.
  ///   - limit: End the subscription after this many values (the current value included); nil
  ///     for no limit. A limit of zero or less delivers nothing, not even the current value.
  ///   - next: Called with each value.
  /// - Returns: The subscription; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    replayingLast: Bool = true,
    limit: Int? = nil,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    Subscription(storage.subscribe(.plain(next), replay: replayingLast, limit: limit))
  }

  /// Subscribes `next` bound to `owner`: `next` receives the current value at once (unless
  /// `replayingLast` is false), then every change, with the owner, which is held weakly; the
  /// subscription ends when the owner is deallocated.
  ///
  /// Use the `owner` argument in `next`, not a strong capture of the owner, or the holder keeps
  /// the owner alive. Binding two holders, so that `mirror` follows `source`:
  ///
  /// ```swift
  /// let source = CurrentValue(1)
  /// let mirror = CurrentValue(0)
  /// source.subscribe(mirror) { mirror, value in mirror.value = value }
  /// ```
  ///
  /// A lost owner's subscription is never called again, and is removed at the next write or
  /// ``subscriberCount``, or by a subscribe once the number of subscribers has doubled since the
  /// last such sweep; ``unsubscribe(_:)`` ends an owner's subscriptions at once.
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:_:)``.
  @discardableResult
  public func subscribe<Owner: AnyObject>(
    _ owner: Owner,
    replayingLast: Bool = true,
    limit: Int? = nil,
    _ next: @escaping (Owner, T) -> Void
  ) -> Subscription {
    Subscription(storage.subscribe(.bound(to: owner, next), replay: replayingLast, limit: limit))
  }

  /// Ends every subscription bound to `owner` (SwiftEvents' `unbind`).
  ///
  /// No delivery to them begins after this returns; their `Subscription` objects are left as
  /// they are (unsubscribing them later does nothing).
  public func unsubscribe(_ owner: AnyObject) {
    let id = ObjectIdentifier(owner)
    storage.endAll { $0.ownerID == id }
  }

  /// Ends every subscription (SwiftEvents' `unbindAll`): no delivery to any of them begins
  /// after this returns. The value is kept, and new subscriptions may follow.
  public func unsubscribeAll() {
    storage.endAll()
  }

  /// The number of subscriptions that have not ended, for diagnostics.
  ///
  /// Subscriptions whose owner is gone are removed first.
  public var subscriberCount: Int {
    storage.subscriberCount
  }

  /// The number of writes delivered since the holder was created or ``resetSendCount()`` was
  /// called (skipped equal writes are not counted), for diagnostics.
  public var sendCount: Int {
    storage.locked.withLock { $0.sendCount }
  }

  /// Sets ``sendCount`` back to zero.
  public func resetSendCount() {
    storage.locked.withLock { $0.sendCount = 0 }
  }

  /// The number of subscribers above which subscribing fails an assertion in debug builds;
  /// 100 by default. See ``Emitter/maxSubscribers``.
  public var maxSubscribers: Int {
    get { storage.locked.withLock { $0.maxSubscribers } }
    set { storage.locked.withLock { $0.maxSubscribers = newValue } }
  }
}

extension CurrentValue where T: Sendable {
  /// Subscribes `next` to be called on `queue` with the current value (unless `replayingLast`
  /// is false), then every change; optionally stopping after a number of values.
  ///
  /// On a serial queue, the current value arrives first, then changes written from one thread
  /// in order. A value waiting on the queue is dropped if the subscription has ended by the
  /// time the queue runs it.
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:_:)``; a limit counts the values
  ///   enqueued.
  @discardableResult
  public func subscribe(
    on queue: DispatchQueue,
    replayingLast: Bool = true,
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
    replayingLast: Bool = true,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Owner, T) -> Void
  ) -> Subscription {
    Subscription(
      storage.subscribe(
        .bound(to: owner, next), queue: queue, replay: replayingLast, limit: limit))
  }
}

extension CurrentValue {
  /// Sets ``maxSubscribers`` to `limit`, or throws if the current value already has more
  /// subscribers than that, leaving the limit as it was (see ``Emitter/setMaxSubscribers(_:)``).
  ///
  /// - Throws: ``MaxSubscribersBelowCount``, with the count, when `limit` is below it.
  public func setMaxSubscribers(_ limit: Int) throws(MaxSubscribersBelowCount) {
    try storage.setMaxSubscribers(limit)
  }
}
