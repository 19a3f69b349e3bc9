import IndefiniteObservable

/// A multicast source that any thread may send into: ``SendableEmitter`` and
/// ``SendableCurrentValue``. Each subscriber says where it runs, and the compiler checks it.
///
/// - `subscribe { ... }` and `subscribe(owner) { ... }` bind the subscriber to the caller's
///   actor (the main actor in top-level code and in `@MainActor` types). It runs there: at once
///   when the value is sent from that actor, otherwise after a hop, in the order sent. Code that
///   is not isolated to an actor cannot call them.
/// - `subscribe(on: queue) { ... }` and `subscribe(on: .sendingThread) { ... }` take a
///   `@Sendable` subscriber.
///
/// Operators are applied to ``stream(replayingLast:isolation:)``, the values as a stream for the
/// caller's actor: every operator is declared once, on `ValueObservable`. Every subscription to
/// the result runs on that actor, as `subscribe { ... }` does; a value sent from that actor is
/// delivered before `send` returns, one sent elsewhere hops. The result is not `Sendable`: it
/// stays with the actor that made it.
///
/// ```swift
/// let temperatures = SendableEmitter<Double>()
/// var shown: [String] = []  // main-actor state in top-level code
/// let display = temperatures.stream()
///   .map { "\($0) °C" }
///   .removeDuplicates()
///   .subscribe { shown.append($0) }
/// temperatures.send(21)
/// temperatures.send(21)
/// // shown == ["21.0 °C"]
/// display.unsubscribe()
/// ```
///
/// Code on no actor cannot call `stream()` (the compiler says "call to actor-isolated instance
/// method ... in a synchronous nonisolated context"), for the reason it cannot call
/// `subscribe { ... }`: it has no actor to run the subscriber on. It subscribes with
/// `subscribe(on: .sendingThread) { ... }` or `subscribe(on: queue) { ... }` instead.
public protocol SendableSource<Value>: MulticastSource, Sendable where Value: Sendable {
  /// The values, as a stream for the caller's actor: each subscription to it runs there. A
  /// ``SendableCurrentValue``'s starts with the current value, a ``SendableEmitter``'s with the next
  /// value sent, unless `replayingLast` says otherwise.
  func stream(replayingLast: Bool, isolation: isolated any Actor) -> ValueObservable<Value>
}

extension SendableSource {
  /// The values, as a stream for the caller's actor: each subscription to it runs there, as with
  /// ``subscribe(replayingLast:limit:isolation:_:)``. Use it to apply operators.
  ///
  /// The stream is not `Sendable`: it stays with the actor that made it.
  ///
  /// - Parameters:
  ///   - replayingLast: Each subscription starts with the last value, if any; false for new
  ///     values only. The default is ``MulticastSource/replaysLastByDefault``.
  ///   - isolation: The actor the subscriptions run on: the caller's, which the compiler passes.
  @inlinable
  public func stream(
    replayingLast: Bool = Self.replaysLastByDefault,
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Value> {
    ValueObservable { observer in
      self.subscribe(replayingLast: replayingLast, isolation: isolation, observer.next).unsubscribe
    }
  }

  /// Subscribes `next` to run on the caller's actor, optionally starting with the last value
  /// (a current value's current value, unless `replayingLast` is false) or stopping after a
  /// number of values.
  ///
  /// ```swift
  /// let downloads = SendableEmitter<Int>()
  /// var done = 0  // a main-actor variable in top-level code
  /// downloads.subscribe { done += $0 }
  /// downloads.send(1)
  /// // done == 1
  /// ```
  ///
  /// - Parameters:
  ///   - replayingLast: Deliver the last value, if any, before this returns; false for new
  ///     values only. The default is ``MulticastSource/replaysLastByDefault``. Values sent from
  ///     other threads meanwhile arrive after it, never before.
  ///   - limit: End the subscription after this many values (the replayed one included); nil
  ///     for no limit. A limit of zero or less delivers nothing.
  ///   - isolation: The actor `next` runs on: the caller's, which the compiler passes.
  ///   - next: Called with each value, on `isolation`.
  /// - Returns: The subscription, which any thread may end (its subscriber still runs only on
  ///   `isolation`); dropping it does not unsubscribe.
  @discardableResult @inlinable
  public func subscribe(
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Value) -> Void
  ) -> SendableSubscription {
    _storage.subscribeOnActor(
      replayingLast: replayingLast, limit: limit, isolation: isolation,
      { delivery in .plain { delivery.deliver($0) } }, next)
  }

  /// Subscribes `next` bound to `owner`, to run on the caller's actor: `next` receives the owner
  /// with each value, the owner is held weakly, and the subscription ends when the owner is
  /// deallocated.
  ///
  /// Attach and forget, as with ``SingleIsolationSource/subscribe(_:replayingLast:limit:_:)``;
  /// use the `owner` argument in `next`, not a strong capture of the owner.
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:isolation:_:)``; `owner` is the object
  ///   the subscription is bound to.
  @discardableResult @inlinable
  public func subscribe<Owner: AnyObject>(
    _ owner: Owner,
    replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil,
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Owner, Value) -> Void
  ) -> SendableSubscription {
    return _storage.subscribeOnActor(
      replayingLast: replayingLast, limit: limit, isolation: isolation
    ) { delivery in
      .bound(to: owner) { _, value in delivery.deliver(value) }
    } _: { [weak owner] value in
      if let owner { next(owner, value) }
    }
  }
}
