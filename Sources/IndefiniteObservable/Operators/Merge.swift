extension ValueObservable {
  /// Passes on the values of this stream and of `others`, in the order they arrive.
  ///
  /// Subscribing subscribes to this stream first, then to each of `others` in order;
  /// unsubscribing unsubscribes from all of them. The streams must not deliver on two threads at
  /// once (see ``ValueObservable``).
  @inlinable
  public func merge(with others: ValueObservable<T>...) -> ValueObservable<T> {
    let sources = [self] + others
    return ValueObservable<T>.connectingNext { next in
      let disconnects = sources.map { $0.connectNext(next) }
      return {
        for disconnect in disconnects { disconnect() }
      }
    }
  }
}
