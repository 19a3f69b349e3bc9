/// A stream of values of type `T`, with operators to compose it.
///
/// ```swift
/// let numbers = ValueObservable<Int> { observer in
///   for n in 1...5 { observer.next(n) }
///   return noopDisconnect
/// }
/// var seen: [Int] = []
/// numbers.filter { $0.isMultiple(of: 2) }.map { $0 * 10 }.subscribe { seen.append($0) }
/// // seen == [20, 40]
/// ```
///
/// Each operator returns a new observable that keeps its upstream alive. Each subscription of a
/// chain connects its own upstream (operators keep per-subscription state, never shared state),
/// and unsubscribing the end of a chain disconnects every stage upstream.
///
/// - Threading: like ``IndefiniteObservable``. Operators do not synchronize: a stream must not
///   deliver values on two threads at once (merge and combineLatest sources included); deliver
///   from one queue or actor, or serialize the sources yourself.
open class ValueObservable<T>: IndefiniteObservable<ValueObserver<T>> {
  /// Subscribes `next` to the stream and returns the subscription.
  ///
  /// Dropping the subscription does not unsubscribe; see ``Subscription``.
  @discardableResult
  @inlinable
  public final func subscribe(_ next: @escaping (T) -> Void) -> Subscription {
    subscribe(observer: ValueObserver(next))
  }
}
