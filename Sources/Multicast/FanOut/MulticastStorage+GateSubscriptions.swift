import Dispatch
import IndefiniteObservable

/// The subscribers of a multicast source that run on an actor or a queue: each is an entry that
/// hands every value to an ``ObserverGate`` (``GateDelivery``), the package's one way across
/// threads, and the gate delivers it there.
///
/// - The gate closes when the subscription ends, whichever way it ends: by `unsubscribe()`, or
///   when the storage lets go of the entry (`unsubscribe(owner)`, `unsubscribeAll()`, a lost
///   owner, its limit), so that the closure is released then and nothing waiting for its hop or
///   on its queue is delivered after. Until the entry is let go of, the gate's closure asks the
///   entry's state (``admits(_:)``).
/// - A limit is counted where the gate delivers, as values are delivered (the one count,
///   ``takeDelivery(from:)``), not as they are handed to the gate: the storage lets go of an entry
///   that has used its limit, and the gate would then drop values that still wait, counted.
///   The subscription ends after its last delivery; values handed to the gate meanwhile are
///   dropped.
/// - A replay is handed to the entry before any later send's value (see `add`), so it reaches
///   the gate, and the queue or actor, first.
extension MulticastStorage where T: Sendable {
  /// Subscribes `next` to run on `isolation`, through an actor-bound gate that the storage's
  /// entry (made by `entry`) feeds.
  @inlinable
  func subscribeOnActor(
    replayingLast: Bool,
    limit: Int?,
    isolation: isolated any Actor,
    _ entry: (GateDelivery<T>) -> MulticastSubscriber<T>,
    _ next: @escaping (T) -> Void
  ) -> SendableSubscription {
    let state = DeliveryState(limit: limit)
    let gate = ObserverGate<T>(isolation: isolation) { value in
      if self.admits(state) { next(value) }
    }
    let end = SendingIsolation.with(isolation) {
      subscribe(entry(GateDelivery(gate)), through: gate, state: state, replay: replayingLast)
    }
    return SendableSubscription(end)
  }

  /// Subscribes `next` to run on `target`: on a queue through a gate, on the sending thread as
  /// the send loop calls it. Parameters as for ``subscribe(_:replay:limit:)``.
  func subscribe(
    on target: some DeliveryTarget,
    replay: Bool,
    limit: Int?,
    _ next: @escaping @Sendable (T) -> Void
  ) -> @Sendable () -> Void {
    let state = DeliveryState(limit: limit)
    guard let queue = target._queue else { return subscribe(.plain(next), state, replay) }
    let gate = ObserverGate<T>(queue: queue) { value in
      if self.admits(state) { next(value) }
    }
    let delivery = GateDelivery(gate)
    return subscribe(
      .plain { delivery.deliver($0) }, through: gate, queue: queue, state: state, replay: replay)
  }

  /// Subscribes `next` bound to `owner`, to run on `target`, as
  /// ``subscribe(on:replay:limit:_:)``. On a queue, the owner is checked there, right before
  /// each call, and the subscription ends when it is found gone.
  func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    on target: some DeliveryTarget,
    replay: Bool,
    limit: Int?,
    _ next: @escaping @Sendable (Owner, T) -> Void
  ) -> @Sendable () -> Void {
    let state = DeliveryState(limit: limit)
    guard let queue = target._queue else {
      return subscribe(.bound(to: owner, next), state, replay)
    }
    let gate = ObserverGate<T>(queue: queue) { [weak owner] value in
      guard self.admits(state) else { return }
      guard let owner else { return self.end(state) }
      next(owner, value)
    }
    let delivery = GateDelivery(gate)
    return subscribe(
      .bound(to: owner) { _, value in delivery.deliver(value) }, through: gate, queue: queue,
      state: state, replay: replay)
  }

  /// Adds a subscriber that the send loop calls on the sending thread, from any thread.
  private func subscribe(
    _ subscriber: MulticastSubscriber<T>, _ state: DeliveryState, _ replay: Bool
  ) -> @Sendable () -> Void {
    let state = add(subscriber, reach: .anyThread, replay: replay, state: state)
    return { self.end(state) }
  }

  /// Adds `subscriber`, an entry that hands each value to `gate`, whose closure counts the
  /// deliveries with `state` (``admits(_:)``); returns the disconnect, which closes the gate and
  /// ends the subscription. `queue` is the gate's, for the description.
  @usableFromInline
  func subscribe(
    _ subscriber: MulticastSubscriber<T>,
    through gate: ObserverGate<T>,
    queue: DispatchQueue? = nil,
    state: DeliveryState,
    replay: Bool
  ) -> @Sendable () -> Void {
    let state = add(
      subscriber, reach: .anyThread, queue: queue, replay: replay, state: state, countsHere: false)
    // A limit of zero or less: nothing will be delivered.
    if state.delivery == DeliveryState.ended { gate.close() }
    return {
      gate.close()
      self.end(state)
    }
  }

  /// Whether a gate's closure delivers a value, where it runs: the subscription has not ended,
  /// and its limit, if it has one, has a delivery left, which this takes.
  @inlinable
  func admits(_ state: DeliveryState) -> Bool {
    state.delivery != DeliveryState.ended && takeDelivery(from: state)
  }
}
