import IndefiniteObservable

/// A stream's values, delivered on the main actor: what `receive(on: MainActor.shared)`
/// returns.
///
/// Subscribe to it where its stream lives. It is not `Sendable`, as its stream is not.
public struct ValuesOnMainActor<T: Sendable> {
  let upstream: ValueObservable<T>

  /// Subscribes `next`, to run on the main actor with each value.
  ///
  /// - Parameter next: Called on the main actor, once per value, in the order sent.
  /// - Returns: The subscription. Dropping it does not unsubscribe, as with
  ///   `ValueObservable.subscribe(_:)`.
  @discardableResult
  public func subscribe(_ next: @escaping @MainActor (T) -> Void) -> Subscription {
    upstream.subscribe(through: ObserverGate(mainActor: next))
  }

  /// Subscribes `next` bound to `owner`, in one line from a `@MainActor` type:
  /// `values.subscribe(self) { model, value in model.title = value }`. The owner is held
  /// weakly, and the subscription ends when it is gone, as a multicast source's owner-bound
  /// subscription does.
  ///
  /// The first value that finds the owner gone, on the main actor, closes the subscription (no
  /// call of `next` follows); the next value the stream sends then ends the upstream
  /// subscription, where the stream delivers. `unsubscribe()` ends both at once.
  ///
  /// - Parameters:
  ///   - owner: The object the subscriber works for, such as a view model.
  ///   - next: Called on the main actor with the owner and each value.
  /// - Returns: The subscription.
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable>(
    _ owner: Owner,
    _ next: @escaping @MainActor (Owner, T) -> Void
  ) -> Subscription {
    // The gate, for its own closure to close it; the cycle ends when it closes.
    let reference = LockedState<ObserverGate<T>?>(nil)
    let gate = ObserverGate<T>(mainActor: { [weak owner] value in
      guard let owner else { return _ = reference.withLock { $0 }?.close() }
      next(owner, value)
    })
    reference.withLock { $0 = gate }
    return upstream.subscribe(through: gate)
  }
}
