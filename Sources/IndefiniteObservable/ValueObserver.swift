/// An observer with a single channel, `next`, used by ``ValueObservable``.
///
/// It holds the closure it was made with and nothing else. A source that keeps the observer keeps
/// the closure (and whatever the closure captures) alive.
public final class ValueObserver<T>: Observer {
  /// The type of the values this observer receives.
  public typealias Value = T

  /// Creates an observer that passes every value to `next`.
  @inlinable
  public init(_ next: @escaping (T) -> Void) {
    self.next = next
  }

  /// Receives the next value.
  public let next: (T) -> Void
}
