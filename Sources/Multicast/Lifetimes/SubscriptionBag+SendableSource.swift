import IndefiniteObservable

extension SubscriptionBag {
  /// Subscribes `next` to `source` (a ``SendableEmitter``, a ``SendableCurrentValue`` or a
  /// read-only view of one), to run on the caller's actor, and keeps the subscription, to be
  /// ended with the bag or by ``unsubscribe(from:)`` with the source or with the object it is
  /// about.
  ///
  /// ```swift
  /// let downloads = SendableEmitter<Int>()
  /// let bag = SubscriptionBag()
  /// var finished = 0  // main-actor state in top-level code
  /// bag.subscribe(to: downloads) { finished += $0 }
  /// bag.unsubscribe(from: downloads)
  /// ```
  ///
  /// `next` runs as with `source.stream(isolation:)`: on the caller's actor, before `send`
  /// returns when the sender runs on that actor, after a hop otherwise. A current value's
  /// subscriber receives the current value first.
  ///
  /// - Parameters:
  ///   - source: The source to subscribe to. The bag holds it weakly (for a read-only view, the
  ///     view's source, which `unsubscribe(from:)` takes).
  ///   - object: The object the subscription is about, to be ended by
  ///     `unsubscribe(from: object)`; the bag holds it weakly. Nil (the default) for none.
  ///   - isolation: The actor `next` runs on: the caller's, which the compiler passes.
  ///   - next: Called with each value, on `isolation`.
  /// - Returns: The subscription, which you may also end alone.
  @discardableResult
  public func subscribe<Source: SendableSource>(
    to source: Source,
    about object: AnyObject? = nil,
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Source.Value) -> Void
  ) -> Subscription {
    let subscription = source.stream(isolation: isolation).subscribe(next)
    insert(subscription, source: source._owner, object: object)
    return subscription
  }
}

extension SubscriptionBag {
  /// Subscribes `next` to `view`, the read-only view of an ``Emitter`` or a ``CurrentValue``,
  /// and keeps the subscription, to be ended with the bag or by ``unsubscribe(from:)`` with the
  /// view's source or with the object it is about: what ``subscribe(to:about:_:)-(ValueObservable<T>,_,_)`` does for the
  /// source itself.
  ///
  /// `next` runs as the view's `subscribe` runs it: synchronously, in the source's isolation
  /// (where this is called). A current value's subscriber receives the current value first.
  ///
  /// - Parameters:
  ///   - view: The view to subscribe to. The bag holds its source weakly.
  ///   - object: The object the subscription is about, to be ended by
  ///     `unsubscribe(from: object)`; the bag holds it weakly. Nil (the default) for none.
  ///   - next: Called with each value.
  /// - Returns: The subscription, which you may also end alone.
  @discardableResult
  public func subscribe<Source: SingleIsolationSource>(
    to view: ReadOnlySource<Source>,
    about object: AnyObject? = nil,
    _ next: @escaping (Source.Value) -> Void
  ) -> Subscription {
    let subscription = view.subscribe(next)
    insert(subscription, source: view._owner, object: object)
    return subscription
  }
}
