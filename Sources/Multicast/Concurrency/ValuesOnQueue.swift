import Dispatch
import IndefiniteObservable

/// A stream's values, delivered on a queue: what `receive(on:)` with a `DispatchQueue` returns.
///
/// Subscribe to it where its stream lives. It is not `Sendable`, as its stream is not.
public struct ValuesOnQueue<T: Sendable> {
  let upstream: ValueObservable<T>
  let queue: DispatchQueue

  /// Subscribes `next`, to run on the queue with each value.
  ///
  /// - Parameter next: Called on the queue, once per value, in the order sent on a serial
  ///   queue.
  /// - Returns: The subscription. Dropping it does not unsubscribe, as with
  ///   `ValueObservable.subscribe(_:)`.
  @discardableResult
  public func subscribe(_ next: @escaping @Sendable (T) -> Void) -> Subscription {
    upstream.subscribe(through: ObserverGate(queue: queue, next))
  }

  /// Subscribes `next` bound to `owner`: `next` receives the owner with each value, on the queue;
  /// the owner is held weakly, and the subscription ends when it is gone, as a multicast
  /// source's owner-bound subscription does.
  ///
  /// The first value that finds the owner gone, on the queue, closes the subscription (no call
  /// of `next` follows); the next value the stream sends then ends the upstream subscription,
  /// where the stream delivers. `unsubscribe()` ends both at once.
  ///
  /// - Parameters:
  ///   - owner: The object the subscriber works for; checked on the queue before each call.
  ///   - next: Called on the queue with the owner and each value.
  /// - Returns: The subscription.
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    _ next: @escaping @Sendable (Owner, T) -> Void
  ) -> Subscription {
    // The gate, for its own closure to close it; the cycle ends when it closes.
    let reference = LockedState<ObserverGate<T>?>(nil)
    let gate = ObserverGate<T>(queue: queue) { [weak owner] value in
      guard let owner else { return _ = reference.withLock { $0 }?.close() }
      next(owner, value)
    }
    reference.withLock { $0 = gate }
    return upstream.subscribe(through: gate)
  }
}
