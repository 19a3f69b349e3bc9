/// What a subscriber provides to an ``IndefiniteObservable``: at least a `next` channel.
///
/// Conform your own observer class to add channels beside `next`, for example a state channel:
///
/// ```swift
/// enum MotionState { case atRest, active }
///
/// final class MotionObserver<T>: Observer {
///   init(next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void) {
///     self.next = next
///     self.state = state
///   }
///   let next: (T) -> Void
///   let state: (MotionState) -> Void
/// }
/// ```
///
/// Observers are called synchronously by their source, on the source's thread.
public protocol Observer {
  /// The type of the values sent through `next`.
  associatedtype Value

  /// Receives the next value of the stream.
  var next: (Value) -> Void { get }
}
