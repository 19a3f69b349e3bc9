extension ValueObservable {
  /// Passes on a running accumulation that `updateAccumulatingResult` updates in place for every
  /// value, starting from `initialResult`; RxSwift's `scan(into:accumulator:)`, the stream form
  /// of the standard library's `reduce(into:_:)` (Combine has only ``scan(_:_:)``).
  ///
  /// ```swift
  /// let words = ValueObservable<String> { observer in
  ///   for word in ["to", "be", "to"] { observer.next(word) }
  ///   return noopDisconnect
  /// }.scan(into: [String: Int]()) { counts, word in counts[word, default: 0] += 1 }
  /// // delivers ["to": 1], then ["to": 1, "be": 1], then ["to": 2, "be": 1]
  /// ```
  ///
  /// Each subscription starts again from `initialResult`; `initialResult` itself is not sent.
  /// The result is the subscription's own, updated in place for the next value: a subscriber that
  /// lets a collection go before the next value arrives costs no copy of it per value; one that
  /// keeps it gets a copy made at the next update, so a kept result never changes.
  ///
  /// `updateAccumulatingResult` runs synchronously on the delivering thread, once per value and
  /// subscription, and must not make this stream deliver again while it runs (the result is
  /// being updated); the subscriber may.
  ///
  /// - Threading: like every operator (see ``ValueObservable``); the result is the subscription's
  ///   own and is not synchronized.
  @inlinable
  public func scan<Result>(
    into initialResult: Result,
    _ updateAccumulatingResult: @escaping (_ result: inout Result, T) -> Void
  ) -> ValueObservable<Result> {
    ValueObservable<Result>.connectingNext { next in
      var result = initialResult
      return self.connectNext { value in
        updateAccumulatingResult(&result, value)
        next(result)
      }
    }
  }
}
