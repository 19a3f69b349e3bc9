extension ValueObservable {
  /// Passes on the values of this stream and of `others`, in the order they arrive.
  ///
  /// Subscribing subscribes to this stream first, then to each of `others` in order;
  /// unsubscribing unsubscribes from all of them. The streams must not deliver on two threads at
  /// once (see ``ValueObservable``).
  @inlinable
  public func merge(with others: ValueObservable<T>...) -> ValueObservable<T> {
    ([self] + others).merge()
  }
}
