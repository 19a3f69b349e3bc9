extension Sequence {
  /// Passes on the values of all these streams, in the order they arrive; Combine's
  /// `Publishers.MergeMany`.
  ///
  /// ```swift
  /// let streams = (1...3).map { n in
  ///   ValueObservable<Int> { observer in
  ///     observer.next(n)
  ///     return noopDisconnect
  ///   }
  /// }
  /// let all = streams.merge()
  /// // delivers 1, 2, 3
  /// ```
  ///
  /// The same as `first.merge(with: second, third, ...)` (see ``ValueObservable/merge(with:)``),
  /// for streams gathered in a collection; its elements may be any kind of stream of `T`
  /// (`[emitter, currentValue]` included). The sequence is copied into an array when the stream
  /// is made. Subscribing subscribes to each stream in order; unsubscribing unsubscribes from all
  /// of them. An empty sequence gives a stream that never delivers.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func merge<T>() -> ValueObservable<T> where Element: ValueObservable<T> {
    let streams = Array(self)
    return ValueObservable<T>.connectingNext { next in
      let disconnects = streams.map { $0.connectNext(next) }
      return {
        for disconnect in disconnects { disconnect() }
      }
    }
  }
}
