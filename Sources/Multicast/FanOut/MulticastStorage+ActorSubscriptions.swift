import IndefiniteObservable

extension MulticastStorage where T: Sendable {
  /// Subscribes `next` to run on `isolation`, through an actor-bound gate that the storage's
  /// entry (made by `entry`) feeds. The gate closes when the subscription ends, whichever way it
  /// ends: by `unsubscribe()`, or when the storage lets go of the entry (`unsubscribe(owner)`,
  /// `unsubscribeAll()`, a lost owner), so that the closure is released then and nothing
  /// waiting for its hop is delivered after.
  ///
  /// A positive limit is counted here, on the actor, as values are delivered, not by the storage
  /// as they are handed to the gate: the storage lets go of an entry that has used its limit,
  /// and the gate would then drop the values it counted that still wait for their hop. The
  /// subscription ends after its last delivery (values handed to the gate meanwhile are
  /// dropped).
  @inlinable
  func subscribeOnActor(
    replayingLast: Bool,
    limit: Int?,
    isolation: isolated any Actor,
    _ entry: (GateDelivery<T>) -> MulticastSubscriber<T>,
    _ next: @escaping (T) -> Void
  ) -> SendableSubscription {
    let stateHolder = DeliveryStateHolder()
    let countsHere = limit.map { $0 > 0 } ?? false
    stateHolder.left = countsHere ? limit : nil
    let gate = ObserverGate<T>(isolation: isolation) { value in
      // The storage may have ended the entry while the value waited for its hop.
      guard stateHolder.state?.delivery != DeliveryState.ended else { return }
      if let left = stateHolder.left {
        guard left > 0 else { return }
        stateHolder.left = left - 1
      }
      next(value)
      if stateHolder.left == 0 { stateHolder.endAtLimit?() }
    }
    let feed = GateDelivery(gate)
    let state = SendingIsolation.with(isolation) {
      add(entry(feed), reach: .anyThread, replay: replayingLast, limit: countsHere ? nil : limit)
    }
    stateHolder.state = state
    let end = { @Sendable in
      gate.close()
      self.end(state)
    }
    if stateHolder.left == 0 {
      end()  // the replay used the limit
    } else if countsHere {
      // Released by `gate.close()`, which every end of the subscription calls.
      stateHolder.endAtLimit = end
    }
    return SendableSubscription(end)
  }
}

/// The state of an actor-bound subscription's storage entry, once `subscribe` has returned it.
///
/// Read and written only on the subscription's actor: by `subscribeOnActor`, which is isolated
/// to it, and by the gate's closure, which runs only there.
@usableFromInline
final class DeliveryStateHolder {
  @usableFromInline var state: DeliveryState?
  /// The deliveries left to a subscription whose positive limit is counted on the actor.
  @usableFromInline var left: Int?
  /// Ends the subscription once its limit is used; set after `subscribe` for such a
  /// subscription, and released with the gate's closure.
  @usableFromInline var endAtLimit: (() -> Void)?

  @inlinable init() {}
}
