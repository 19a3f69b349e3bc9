import IndefiniteObservable

/// A stream read from a file descriptor: values on `next`, and end of file, truncation and
/// failure on `status`. Made by ``FileDescriptors``.
///
/// It is an `IndefiniteObservable` with a two-channel observer, a small example of the generic
/// core: the stream never completes, yet its subscriber learns that the data ended.
/// ``stream()`` drops the status channel, to compose with the operators of `ValueObservable`,
/// as `stream()` of every other source does.
///
/// - Threading: both channels are delivered on the actor that made the stream, one call at a
///   time and in order. The stream is not `Sendable`: subscribe and unsubscribe on that actor.
public final class DescriptorObservable<Value>: IndefiniteObservable<DescriptorObserver<Value>> {
  /// Subscribes the two channels and returns the subscription.
  ///
  /// Dropping the subscription does not unsubscribe, and the descriptor stays watched until you
  /// call its `unsubscribe()`.
  @discardableResult
  public func subscribe(
    next: @escaping (Value) -> Void,
    status: @escaping (DescriptorStatus) -> Void = { _ in }
  ) -> Subscription {
    subscribe(observer: DescriptorObserver(next: next, status: status))
  }

  /// The values alone, as a `ValueObservable`; each of its subscriptions subscribes this
  /// stream and ignores the status channel. Delivered as the stream delivers: on its actor.
  public func stream() -> ValueObservable<Value> {
    ValueObservable { observer in
      self.subscribe(next: observer.next).unsubscribe
    }
  }
}
