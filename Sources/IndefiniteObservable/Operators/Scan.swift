extension ValueObservable {
  /// Passes on a running accumulation: `accumulate(previousResult, value)` for every value,
  /// starting from `initialResult`.
  ///
  /// Each subscription starts again from `initialResult`; `initialResult` itself is not sent.
  ///
  /// ```swift
  /// let runningTotal = ValueObservable<Int> { observer in
  ///   for n in [1, 2, 3] { observer.next(n) }
  ///   return noopDisconnect
  /// }.scan(0, +)
  /// // delivers 1, 3, 6
  /// ```
  @inlinable
  public func scan<Result>(
    _ initialResult: Result,
    _ accumulate: @escaping (Result, T) -> Result
  ) -> ValueObservable<Result> {
    ValueObservable<Result>.connectingNext { next in
      var result = initialResult
      return self.connectNext { value in
        result = accumulate(result, value)
        next(result)
      }
    }
  }
}
