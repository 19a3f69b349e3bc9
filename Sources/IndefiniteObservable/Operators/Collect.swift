extension ValueObservable {
  /// Passes on the values in batches of `count`, in order: an array each time `count` values
  /// have arrived; Combine's `collect(_:)`.
  ///
  /// ```swift
  /// let samples = Emitter<Int>()
  /// var batches: [[Int]] = []
  /// let batching = samples.collect(2).subscribe { batches.append($0) }
  /// for sample in 1...5 { samples.send(sample) }
  /// // batches == [[1, 2], [3, 4]]; 5 waits for its batch
  /// ```
  ///
  /// With no completion, no partial batch is flushed at an end: the values of an unfinished
  /// batch are dropped when the subscription ends. Each subscription collects its own batches.
  ///
  /// A `count` of zero or less is taken as 1: every value in a batch of its own (Combine stops
  /// the program there).
  ///
  /// - Threading: like every operator (see ``ValueObservable``); the batch is the subscription's
  ///   own and is not synchronized.
  /// - Cost: one array per batch, with room for `count` values, made when its first value
  ///   arrives; nothing else per value.
  @inlinable
  public func collect(_ count: Int) -> ValueObservable<[T]> {
    let count = Swift.max(count, 1)
    return ValueObservable<[T]>.connectingNext { next in
      var batch: [T] = []
      return self.connectNext { value in
        if batch.isEmpty { batch.reserveCapacity(count) }
        batch.append(value)
        guard batch.count == count else { return }
        var full: [T] = []
        swap(&full, &batch)  // `batch` is empty again before `next` runs, re-entrantly or not.
        next(full)
      }
    }
  }
}
