import IndefiniteObservable

extension MulticastStorage where T: Sendable {
  /// Subscribes `next` to run on `isolation`, through an actor-bound gate that the storage's
  /// entry (made by `entry`) feeds. The gate closes when the subscription ends, whichever way it
  /// ends: by `unsubscribe()`, or when the storage lets go of the entry (`unsubscribe(owner)`,
  /// `unsubscribeAll()`, a limit, a lost owner), so that the closure is released then and
  /// nothing waiting for its hop is delivered after.
  func subscribeOnActor(
    replayingLast: Bool,
    limit: Int?,
    isolation: isolated any Actor,
    _ entry: (GateDelivery<T>) -> MulticastSubscriber<T>,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    let stateHolder = DeliveryStateHolder()
    let gate = ObserverGate<T>(isolation: isolation) { value in
      // The storage may have ended the entry while the value waited for its hop.
      guard stateHolder.state?.delivery != DeliveryState.ended else { return }
      next(value)
    }
    let feed = GateDelivery(gate)
    let (disconnect, state) = SendingIsolation.with(isolation) {
      subscribeReportingState(entry(feed), replay: replayingLast, limit: limit)
    }
    stateHolder.state = state
    return Subscription {
      gate.close()
      disconnect()
    }
  }
}

/// The state of an actor-bound subscription's storage entry, once `subscribe` has returned it.
///
/// Read and written only on the subscription's actor: by `subscribeOnActor`, which is isolated
/// to it, and by the gate's closure, which runs only there.
private final class DeliveryStateHolder {
  var state: DeliveryState?

}
