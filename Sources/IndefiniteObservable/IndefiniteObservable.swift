/// A stream of values that never ends: no completion, no error, only values.
///
/// An observable is made from a *connect* closure. Every call to ``subscribe(observer:)`` runs
/// connect once with the given observer (streams are cold) and wraps the *disconnect* closure that
/// connect returns in a ``Subscription``. Connect usually registers the observer with some event
/// source and returns how to unregister it:
///
/// ```swift
/// let numbers = IndefiniteObservable<ValueObserver<Int>> { observer in
///   observer.next(1)
///   observer.next(2)
///   return noopDisconnect
/// }
/// var seen: [Int] = []
/// numbers.subscribe(observer: ValueObserver { seen.append($0) })
/// ```
///
/// The observer type is generic, so a stream can offer several channels (see ``Observer``).
/// Subclass this type to give a stream family its own `subscribe` and operators, as
/// ``ValueObservable`` does.
///
/// - Threading: none of its own. Connect runs synchronously on the thread that subscribes, and
///   values reach the observer on whatever thread the source calls it from. The type is not
///   `Sendable`: it is a synchronous, single-isolation building block.
/// - Lifetime: an observable keeps its connect closure and nothing else. It does not keep its
///   subscriptions, and a subscription does not keep the observable; whatever connect registers
///   with a source lives as long as that source keeps it.
open class IndefiniteObservable<O: Observer> {
  /// The shape of a connect closure: it receives the observer and returns how to disconnect it.
  public typealias Connect<P> = (P) -> Disconnect

  /// Creates an observable whose `connect` runs once per call to ``subscribe(observer:)``.
  ///
  /// - Parameter connect: Registers the observer with a source and returns the closure that
  ///   unregisters it (or ``noopDisconnect()`` when there is nothing to undo). It is not called
  ///   here, only on subscription.
  public init(_ connect: @escaping (O) -> Disconnect) {
    self.connect = connect
  }

  /// Runs connect with `observer` and returns a subscription that can disconnect it.
  ///
  /// Values that connect sends synchronously reach `observer` before this method returns.
  /// Dropping the returned subscription does **not** unsubscribe: the stream stays connected for
  /// as long as its source keeps the observer. Keep the subscription and call
  /// ``Subscription/unsubscribe()`` to stop.
  @discardableResult
  @inlinable
  public final func subscribe(observer: O) -> Subscription {
    Subscription(connect(observer))
  }

  /// The connect closure this observable was made with; inlinable, so that a subscription whose
  /// observer and disconnect the optimizer can follow needs no allocation of its own.
  @usableFromInline
  let connect: (O) -> Disconnect
}
