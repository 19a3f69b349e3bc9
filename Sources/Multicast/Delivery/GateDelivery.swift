import IndefiniteObservable

/// What the storage's entry of an actor-bound subscription holds: it hands each value to the
/// gate, and closes the gate when the storage lets go of the entry, which releases the
/// subscriber's closure (a closure that keeps its own subscription, so that it can end it, would
/// otherwise leave a cycle when the storage ends the entry by itself).
@usableFromInline
final class GateDelivery<T: Sendable>: Sendable {
  @usableFromInline let gate: ObserverGate<T>

  @inlinable init(_ gate: ObserverGate<T>) { self.gate = gate }

  deinit { gate.close() }

  /// Hands `value` to the gate, from a sender that set its isolation with `SendingIsolation`.
  @inlinable
  func deliver(_ value: T) {
    _ = gate.sendFromCurrentThread(value)
  }
}
