extension Sequence {
  /// Passes on an array of the latest values of these streams, in the sequence's order, whenever
  /// any of them delivers, once every one has delivered at least once.
  ///
  /// ```swift
  /// func field(_ texts: String...) -> ValueObservable<String> {
  ///   ValueObservable { observer in
  ///     for text in texts { observer.next(text) }
  ///     return noopDisconnect
  ///   }
  /// }
  /// let allFilled = [field("Ada"), field("", "ada@example.com")].combineLatest()
  ///   .map { $0.allSatisfy { !$0.isEmpty } }
  /// // delivers false (["Ada", ""]), then true (["Ada", "ada@example.com"])
  /// ```
  ///
  /// For two to four streams of different types, ``ValueObservable/combineLatest(_:)`` and its
  /// siblings give tuples. The elements may be any kind of stream of `T`
  /// (`[emitter, currentValue]` included). The sequence is copied into an array when the stream
  /// is made. Subscribing subscribes to the streams in order; unsubscribing unsubscribes from all
  /// of them. Each subscription keeps its own latest values. An empty sequence gives a stream
  /// that never delivers.
  ///
  /// The array passed on is the subscription's own, updated in place for the next value: a
  /// subscriber that lets it go before the next value arrives costs no allocation per value; one
  /// that keeps it (or a stage that buffers it) gets a copy made at the next value.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func combineLatest<T>() -> ValueObservable<[T]> where Element: ValueObservable<T> {
    let streams = Array(self)
    return ValueObservable<[T]>.connectingNext { next in
      guard !streams.isEmpty else { return noopDisconnect }
      // Until every stream has delivered, the latest values are optional; then they move, once,
      // into `values`, which is updated in place from then on.
      var partial = [T?](repeating: nil, count: streams.count)
      var missing = streams.count
      var values: [T] = []
      let disconnects = streams.indices.map { index in
        streams[index].connectNext { value in
          if missing == 0 {
            values[index] = value
            next(values)
            return
          }
          if partial[index] == nil { missing -= 1 }
          partial[index] = value
          guard missing == 0 else { return }
          values = partial.compactMap { $0 }
          partial = []
          next(values)
        }
      }
      return {
        for disconnect in disconnects { disconnect() }
      }
    }
  }
}
