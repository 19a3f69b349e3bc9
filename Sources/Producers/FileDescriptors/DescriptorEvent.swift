import IndefiniteObservable
import Multicast

/// One call of a descriptor stream's observer: the values of one chunk, with what to do once
/// the subscriber has them and a status that follows them, or a status.
@usableFromInline
enum DescriptorEvent<Value: Sendable>: Sendable {
  case values([Value], then: (@Sendable () -> Void)?, status: DescriptorStatus? = nil)
  case status(DescriptorStatus)

  /// The gate that calls `next` and `status` on `isolation`: the values of a batch one by one,
  /// until the subscription ends (a subscriber may unsubscribe in the middle of a batch), then
  /// the batch's continuation if the subscription goes on.
  @inlinable
  static func gate(
    next: @escaping (Value) -> Void,
    status: @escaping (DescriptorStatus) -> Void,
    isolation: isolated any Actor
  ) -> ObserverGate<DescriptorEvent<Value>> {
    let reference = GateReference<DescriptorEvent<Value>>()
    let gate = ObserverGate<DescriptorEvent<Value>>(isolation: isolation) { event in
      reference.gate.map { $0.deliver(event, next: next, status: status) }
    }
    reference.gate = gate
    return gate
  }

  /// The gate that calls `next` and `status` on the thread that read the values (the reader's
  /// turns are one at a time, so the calls are too), as ``gate(next:status:isolation:)`` does
  /// on an actor.
  @inlinable
  static func gate(
    next: @escaping @Sendable (Value) -> Void,
    status: @escaping @Sendable (DescriptorStatus) -> Void
  ) -> ObserverGate<DescriptorEvent<Value>> {
    // Set once, before the gate is handed to the reader; the cycle it makes ends when the gate
    // closes, as with `GateReference`.
    let reference = LockedState<ObserverGate<DescriptorEvent<Value>>?>(nil)
    let gate = ObserverGate<DescriptorEvent<Value>> { event in
      reference.withLock { $0 }.map { $0.deliver(event, next: next, status: status) }
    }
    reference.withLock { $0 = gate }
    return gate
  }
}

extension ObserverGate {
  /// Calls `next` with the values of `event` one by one while this gate is open, then `status`
  /// with the status that follows them and the continuation, if it still is; or `status` with
  /// its status.
  @inlinable
  func deliver<Element>(
    _ event: DescriptorEvent<Element>, next: (Element) -> Void,
    status: (DescriptorStatus) -> Void
  ) {
    switch event {
    case .values(let values, let then, let following):
      for value in values {
        guard !isClosed else { return }
        next(value)
      }
      if let following {
        guard !isClosed else { return }
        status(following)
      }
      if !isClosed { then?() }
    case .status(let descriptorStatus): status(descriptorStatus)
    }
  }
}

/// The gate, for the gate's own closure (which runs on its actor only) to ask whether the
/// subscription is still open.
///
/// A strong reference: the cycle it makes (gate, closure, reference, gate) ends when the gate
/// closes, which releases the closure. A weak one would give the gate a side table, which
/// LeakSanitizer reports as a leak when the program exits while the stream is subscribed (seen:
/// `follow` stopped by SIGTERM under load).
@usableFromInline
final class GateReference<Value: Sendable> {
  @usableFromInline var gate: ObserverGate<Value>?

  @inlinable init() {}
}
