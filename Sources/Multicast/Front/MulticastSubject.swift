import IndefiniteObservable

/// A multicast source as its owner holds it: ``Emitter``, ``CurrentValue``, ``SendableEmitter``
/// and ``SendableCurrentValue``. Beside the subscribing spellings of ``MulticastSource``, it has
/// those that act on every subscriber, which a read-only view (``readOnly``) leaves out, as
/// Combine's `eraseToAnyPublisher()` leaves out a subject's `send`: `send()` for `Void` (each
/// source adds its own `send(_:)` and, for a current value, its `value` setter),
/// ``unsubscribeAll()``, ``maxSubscribers``, ``setMaxSubscribers(_:)``, ``onSubscriberCountChange(_:)`` and
/// ``resetSendCount()``.
///
/// The conformance is the module's own, as ``MulticastSource``'s.
public protocol MulticastSubject<Value>: MulticastSource, AnyObject {}

extension MulticastSubject {
  /// The source seen by those who may subscribe to it but not send into it (Combine's
  /// `eraseToAnyPublisher()`, RxSwift's `asObservable()`).
  ///
  /// ```swift
  /// let progress = SendableEmitter<Double>()
  /// let view = progress.readOnly  // subscribe, operators, counters; no send
  /// view.subscribe(on: .sendingThread) { print($0) }
  /// progress.send(0.5)  // prints 0.5
  /// ```
  ///
  /// The view subscribes to this source's own subscriber list, with every subscribing spelling
  /// of the source's kind and the same defaults; nothing is added on the path of a send. A view
  /// of a `Sendable` source is `Sendable`. The view keeps the source alive, as the source's
  /// subscriptions do not.
  public var readOnly: ReadOnlySource<Self> {
    ReadOnlySource(self)
  }

  /// Ends every subscription (SwiftEvents' `unbindAll`): no delivery to any of them begins after
  /// this returns. The last value is kept, and new subscriptions may follow.
  public func unsubscribeAll() {
    _storage.endAll()
  }

  /// Sets ``MulticastSource/sendCount`` back to zero. A send on another thread at the same time
  /// may be counted before or after.
  public func resetSendCount() {
    _storage.locked.withLock { $0.sendCount = 0 }
  }

  /// The number of subscribers above which the source warns of a likely leak; 100 by default.
  ///
  /// A guard against runaway subscription (subscribing in a loop, or never unsubscribing): the
  /// subscribe that passes the limit prints one warning on standard error, naming the source's
  /// type, its count and the limit, once per source, in every build; the program goes on, and
  /// so does the subscription (Node's `EventEmitter` does the same; Uber's Signals stopped a
  /// debug build, which stopped legitimate apps too). Raise it for sources that legitimately have
  /// many subscribers; `Int.max` turns the warning off. Subscriptions whose owner is gone do not
  /// count; a read-only view's subscriptions do.
  ///
  /// Setting it takes any value, even one below ``MulticastSource/subscriberCount`` (then the
  /// next subscribe warns); to have such a limit refused at once, call
  /// ``setMaxSubscribers(_:)``.
  public var maxSubscribers: Int {
    get { _storage.locked.withLock { $0.maxSubscribers } }
    set { _storage.locked.withLock { $0.maxSubscribers = newValue } }
  }

  /// Calls `observer` with the number of subscribers after each change of it: a subscription
  /// added, or one ended for any reason (`unsubscribe()`, its owner gone, its `limit` reached,
  /// ``unsubscribeAll()``, the source released). Uber Signals' `onListenerAdded` and
  /// `onListenerRemoved`, in one closure: start work with the first subscriber (`count == 1`)
  /// and stop it with the last (`count == 0`).
  ///
  /// - Threading: `observer` runs on the thread that made the change, after it, with no lock of
  ///   the package held, so it may subscribe or unsubscribe itself; changes made on several
  ///   threads at once report at once, each with the count just after its own change. A
  ///   subscription whose owner is gone is counted out when the source notices: at its next
  ///   value, or at a later subscribe's sweep.
  /// - Lifetime: the source keeps `observer` until it is replaced; nil removes it. The one it
  ///   replaces is released after the source's lock.
  public func onSubscriberCountChange(_ observer: (@Sendable (_ count: Int) -> Void)?) {
    _storage.setOnCountChange(observer)
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

  /// This source, with ``maxSubscribers`` set to `Int.max`: for a source that the package makes
  /// for its own use, whose subscribers are the user's and whose limit the user cannot reach.
  func withoutSubscriberLimit() -> Self {
    maxSubscribers = .max
    return self
  }
}

extension MulticastSubject where Value == Void {
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
