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
  /// Creates a stream whose `connect` runs once per subscription, with a new ``ValueObserver``.
  ///
  /// - Parameter connect: Registers the observer with a source and returns the closure that
  ///   unregisters it (or ``noopDisconnect()`` when there is nothing to undo). It is not called
  ///   here, only on subscription.
  @inlinable
  public override init(_ connect: @escaping (ValueObserver<T>) -> Disconnect) {
    connectNext = { next in connect(ValueObserver(next)) }
    super.init(connect)
  }

  /// Creates a stream from a connect closure that takes the subscriber's `next` closure itself.
  ///
  /// Operators are made this way: a chain of them hands each stage's closure straight to the
  /// stage above, and only the stream at the top of the chain wraps one in an observer.
  ///
  /// The closure comes wrapped in a ``NextConnection``, which no closure literal is: under
  /// `@testable import`, which makes this initializer visible, `ValueObservable<Int> { observer
  /// in ... }` must still mean ``init(_:)``, as 4.0's own tests write it.
  @usableFromInline
  init(connectNext: NextConnection<T>) {
    let connectNext = connectNext.connect
    self.connectNext = connectNext
    super.init { observer in connectNext(observer.next) }
  }

  /// A stream made with ``init(connectNext:)`` from `connectNext`, as operators write it.
  @inlinable
  static func connectingNext(
    _ connectNext: @escaping (_ next: @escaping (T) -> Void) -> Disconnect
  ) -> ValueObservable<T> {
    ValueObservable(connectNext: NextConnection(connectNext))
  }

  /// Subscribes `next` to the stream and returns the subscription.
  ///
  /// Dropping the subscription does not unsubscribe; see ``Subscription``.
  @discardableResult
  @inlinable
  public final func subscribe(_ next: @escaping (T) -> Void) -> Subscription {
    Subscription(connectNext(next))
  }

  /// Connects `next` to the stream, as ``subscribe(_:)`` does, and returns the disconnect itself
  /// rather than a ``Subscription``: operators call it, and the subscription at the end of their
  /// chain calls the disconnect once.
  @usableFromInline
  let connectNext: (_ next: @escaping (T) -> Void) -> Disconnect
}

/// A connect closure that takes the subscriber's `next` closure itself, for
/// ``ValueObservable/init(connectNext:)``: a type of its own, so that no trailing closure matches
/// that initializer.
@usableFromInline
struct NextConnection<T> {
  /// Connects `next` and returns the disconnect.
  @usableFromInline let connect: (_ next: @escaping (T) -> Void) -> Disconnect

  /// Wraps `connect`.
  @inlinable
  init(_ connect: @escaping (_ next: @escaping (T) -> Void) -> Disconnect) {
    self.connect = connect
  }
}
