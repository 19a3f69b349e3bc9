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
  func subscribeOnActor(
    replayingLast: Bool,
    limit: Int?,
    isolation: isolated any Actor,
    _ entry: (GateFeed<T>) -> MulticastSubscriber<T>,
    _ next: @escaping (T) -> Void
  ) -> Subscription {
    let entryState = EntryState()
    let countsHere = limit.map { $0 > 0 } ?? false
    entryState.left = countsHere ? limit : nil
    let gate = ObserverGate<T>(isolation: isolation) { value in
      // The storage may have ended the entry while the value waited for its hop.
      guard entryState.state?.delivery != MulticastState.ended else { return }
      if let left = entryState.left {
        guard left > 0 else { return }
        entryState.left = left - 1
      }
      next(value)
      if entryState.left == 0 { entryState.endAtLimit?() }
    }
    let feed = GateFeed(gate)
    let (disconnect, state) = SendingIsolation.with(isolation) {
      subscribeReportingState(
        entry(feed), replay: replayingLast, limit: countsHere ? nil : limit)
    }
    entryState.state = state
    let end = {
      gate.close()
      disconnect()
    }
    if entryState.left == 0 {
      end()  // the replay used the limit
    } else if countsHere {
      // Released by `gate.close()`, which every end of the subscription calls.
      entryState.endAtLimit = end
    }
    return Subscription(end)
  }
}

/// What the storage's entry of an actor-bound subscription holds: it hands each value to the
/// gate, and closes the gate when the storage lets go of the entry, which releases the
/// subscriber's closure (a `TopicBus` subscription's closure keeps its subscription, so an entry
/// that the storage ends by itself would otherwise leave a cycle).
final class GateFeed<T: Sendable>: Sendable {
  private let gate: ObserverGate<T>

  init(_ gate: ObserverGate<T>) { self.gate = gate }

  deinit { gate.close() }

  /// Hands `value` to the gate, from a sender that set its isolation with `SendingIsolation`.
  func deliver(_ value: T) {
    _ = gate.deliverFromCurrentSender(value)
  }
}

/// The state of an actor-bound subscription's storage entry, once `subscribe` has returned it.
///
/// Read and written only on the subscription's actor: by `subscribeOnActor`, which is isolated
/// to it, and by the gate's closure, which runs only there.
private final class EntryState {
  var state: MulticastState?
  /// The deliveries left to a subscription whose positive limit is counted on the actor.
  var left: Int?
  /// Ends the subscription once its limit is used; set after `subscribe` for such a
  /// subscription, and released with the gate's closure.
  var endAtLimit: (() -> Void)?
}
