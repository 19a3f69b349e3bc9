import Dispatch
import IndefiniteObservable

/// A source of values that many subscribers share, that any thread may send into, and whose
/// subscribers each run where they were written.
///
/// Where ``Emitter`` lives in one isolation with its subscribers, a shared emitter is `Sendable`:
/// keep it in a `static let`, hand it to a background queue, send from anywhere. Each
/// subscriber says where it runs, and the compiler checks it:
///
/// - `subscribe { ... }` and `subscribe(owner) { ... }` bind the subscriber to the caller's
///   actor (the main actor in top-level code and in `@MainActor` types). It runs there: at once
///   when the value is sent from that actor, otherwise after a hop, in the order sent. Code that
///   is not isolated to an actor cannot call them.
/// - `subscribe(on: queue) { ... }` takes a `@Sendable` subscriber and runs it on `queue`.
///
/// ```swift
/// @MainActor final class StatusLabel {
///   var text = ""
///   init(status: SharedEmitter<String>) {
///     status.subscribe(self) { label, value in label.text = value }  // runs on the main actor
///   }
/// }
/// let status = SharedEmitter<String>()
/// let label = StatusLabel(status: status)
/// status.send("ready")  // sent from the main actor: delivered before send returns
/// // label.text == "ready"
/// ```
///
/// It has the operators of a value stream (``SharedSource``), each bound to the actor of the
/// code that applies it: `emitter.map { ... }.subscribe { ... }` runs on the caller's actor.
///
/// - Threading: ``send(_:isolation:)``, subscribing and unsubscribing are safe from any thread
///   (subscribing to the caller's actor, from that actor). Values from one thread reach each
///   subscriber in the order that thread sent them.
/// - Unsubscribing: once `unsubscribe()` returns, no delivery to that subscription begins,
///   including values waiting for their hop or on their queue.
/// - Re-entrancy, options and lifetime: as ``Emitter``'s.
public final class SharedEmitter<T: Sendable>: SharedSource {
  let storage: MulticastStorage<T>

  /// Ends every subscription and releases the last value.
  deinit {
    storage.close()
  }

  /// Creates a shared emitter with no subscribers and no last value, that keeps the last value
  /// sent.
  public convenience init() {
    self.init(keepsLastValue: true)
  }

  /// Creates a shared emitter with no subscribers, that keeps the last value sent or keeps none
  /// (see ``Emitter/init(keepsLastValue:)``).
  public init(keepsLastValue: Bool) {
    storage = MulticastStorage<T>(kind: .sharedEmitter, keepsLast: keepsLastValue)
  }

  /// Delivers `value` to every current subscriber and keeps it as the last value (unless the
  /// emitter keeps none).
  ///
  /// Subscribers bound to an actor that this thread runs have been called when this returns,
  /// after the values that waited for them: the caller's actor (`isolation`), or, when it is
  /// nil (a `nonisolated` wrapper), the actor recorded by a send or a subscriber's turn further
  /// up this thread, or the main actor when this thread runs the main queue. The others have
  /// their delivery scheduled on their actor or queue. Callable from any thread, including from
  /// a subscriber.
  ///
  /// - Parameters:
  ///   - value: The value to deliver.
  ///   - isolation: The caller's isolation, which the compiler passes.
  public func send(_ value: T, isolation: isolated (any Actor)? = #isolation) {
    SendingIsolation.with(isolation) { storage.send(value) }
  }

  /// Subscribes `next` to run on the caller's actor, optionally starting with the last value
  /// sent or stopping after a number of values.
  ///
  /// ```swift
  /// let downloads = SharedEmitter<Int>()
  /// var done = 0  // a main-actor variable in top-level code
  /// downloads.subscribe { done += $0 }
  /// downloads.send(1)
  /// // done == 1
  /// ```
  ///
  /// - Parameters:
  ///   - replayingLast: Deliver the last value sent, if any, before this returns.
  ///   - limit: End the subscription after this many values (the replayed one included); nil
  ///     for no limit. A limit of zero or less delivers nothing.
  ///   - isolation: The actor `next` runs on: the caller's, which the compiler passes.
  ///   - next: Called with each value, on `isolation`.
  /// - Returns: The subscription; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    replayingLast: Bool = false,
    limit: Int? = nil,
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    subscribeOnActor(replayingLast: replayingLast, limit: limit, isolation: isolation) { gate in
      .plain { gate.deliver($0) }
    } _: { value in
      next(value)
    }
  }

  /// Subscribes `next` bound to `owner`, to run on the caller's actor: `next` receives the owner
  /// with each value, the owner is held weakly, and the subscription ends when the owner is
  /// deallocated.
  ///
  /// Attach and forget, as with ``Emitter/subscribe(_:replayingLast:limit:_:)``; use the `owner`
  /// argument in `next`, not a strong capture of the owner.
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:isolation:_:)``.
  @discardableResult
  public func subscribe<Owner: AnyObject>(
    _ owner: Owner,
    replayingLast: Bool = false,
    limit: Int? = nil,
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Owner, T) -> Void
  ) -> Subscription {
    let weakOwner = WeakOwner(owner)
    return subscribeOnActor(replayingLast: replayingLast, limit: limit, isolation: isolation) {
      gate in
      .bound(to: owner) { _, value in gate.deliver(value) }
    } _: { value in
      if let owner = weakOwner.object { next(owner, value) }
    }
  }

  /// Subscribes `next` to run on the sending thread, synchronously, before `send` returns:
  /// the fastest delivery, for a `@Sendable` closure (see ``SendingThread``).
  ///
  /// - Parameters: See ``subscribe(replayingLast:limit:isolation:_:)``; the replayed value is
  ///   delivered on this thread, before this returns.
  @discardableResult
  public func subscribe(
    on _: SendingThread,
    replayingLast: Bool = false,
    limit: Int? = nil,
    _ next: @escaping @Sendable (T) -> Void
  ) -> Subscription {
    Subscription(storage.subscribe(.plain(next), replay: replayingLast, limit: limit))
  }

  /// Subscribes `next` bound to `owner`, to run on the sending thread (see
  /// ``subscribe(on:replayingLast:limit:_:)-(SendingThread,_,_,_)``).
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    on _: SendingThread,
    replayingLast: Bool = false,
    limit: Int? = nil,
    _ next: @escaping @Sendable (Owner, T) -> Void
  ) -> Subscription {
    Subscription(storage.subscribe(.bound(to: owner, next), replay: replayingLast, limit: limit))
  }

  /// Subscribes `next` to run on `queue`, optionally starting with the last value sent or
  /// stopping after a number of values; as ``Emitter/subscribe(on:replayingLast:limit:_:)``.
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

  /// Subscribes `next` bound to `owner`, to run on `queue`. The owner is checked on the queue,
  /// right before each call.
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

  /// The values, as a stream for the caller's actor: each subscription to it runs there, as with
  /// ``subscribe(replayingLast:limit:isolation:_:)``. Use it to apply operators.
  ///
  /// The stream is not `Sendable`: it stays with the actor that made it.
  public func values(
    replayingLast: Bool = false,
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<T> {
    ValueObservable { observer in
      self.subscribeOnActor(replayingLast: replayingLast, limit: nil, isolation: isolation) {
        gate in
        .plain { gate.deliver($0) }
      } _: { value in
        observer.next(value)
      }.unsubscribe
    }
  }

  /// The values sent from now on, as a stream for the caller's actor: the stream that the
  /// operators of ``SharedSource`` start from; `values(isolation:)`.
  public func stream(isolation: isolated any Actor = #isolation) -> ValueObservable<T> {
    values(replayingLast: false, isolation: isolation)
  }

  /// Ends every subscription bound to `owner`.
  public func unsubscribe(_ owner: AnyObject) {
    let id = ObjectIdentifier(owner)
    storage.endAll { $0.ownerID == id }
  }

  /// Ends every subscription: no delivery to any of them begins after this returns.
  public func unsubscribeAll() {
    storage.endAll()
  }

  /// The last value sent, or nil before the first send (always nil when the emitter keeps
  /// none).
  public var lastValue: T? {
    storage.read().value
  }

  /// The number of subscriptions that have not ended, for diagnostics.
  public var subscriberCount: Int {
    storage.subscriberCount
  }

  /// The number of values sent since the emitter was created, for diagnostics.
  public var sendCount: Int {
    storage.locked.withLock { $0.sendCount }
  }

  /// The number of subscribers above which subscribing fails an assertion in debug builds;
  /// 100 by default. See ``Emitter/maxSubscribers``.
  public var maxSubscribers: Int {
    get { storage.locked.withLock { $0.maxSubscribers } }
    set { storage.locked.withLock { $0.maxSubscribers = newValue } }
  }

  /// Subscribes `next` to run on `isolation`: see `MulticastStorage.subscribeOnActor`.
  private func subscribeOnActor(
    replayingLast: Bool,
    limit: Int?,
    isolation: isolated any Actor,
    _ entry: (GateFeed<T>) -> MulticastSubscriber<T>,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    storage.subscribeOnActor(
      replayingLast: replayingLast, limit: limit, isolation: isolation, entry, next)
  }
}

extension SharedEmitter {
  /// Sets ``sendCount`` back to zero, as ``Emitter/resetSendCount()`` does. Callable from any
  /// thread; a send on another thread at the same time may be counted before or after.
  public func resetSendCount() {
    storage.locked.withLock { $0.sendCount = 0 }
  }

  /// Sets ``maxSubscribers`` to `limit`, or throws if the emitter already has more subscribers
  /// than that, leaving the limit as it was (see ``Emitter/setMaxSubscribers(_:)``). Callable
  /// from any thread; the check and the change are one step under the emitter's lock.
  ///
  /// - Throws: ``MaxSubscribersBelowCount``, with the count, when `limit` is below it.
  public func setMaxSubscribers(_ limit: Int) throws(MaxSubscribersBelowCount) {
    try storage.setMaxSubscribers(limit)
  }
}
