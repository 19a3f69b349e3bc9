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
    upstream.subscribe(through: ObserverGate(mainActor: next)) { gate, value in gate.send(value) }
  }

  /// Subscribes `next` bound to `owner`, in one line from a `@MainActor` type:
  /// `values.subscribe(self) { model, value in model.title = value }`. The owner is held
  /// weakly, and a value that finds it gone is dropped.
  ///
  /// The subscription ends with `unsubscribe()`; an owner's deallocation only stops the calls,
  /// as this stream cannot tell its source to let go (`SendableEmitter` can).
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
    return subscribe { [weak owner] value in
      if let owner { next(owner, value) }
    }
  }
}
