extension ValueObservable {
  /// Passes on only the values for which `isIncluded` returns `true`.
  ///
  /// `isIncluded` runs synchronously on the delivering thread, once per value and subscription.
  /// Applied to a stream that `map` or `filter` made, it runs in that stream's stage: one
  /// closure call fewer per value and one allocation fewer per subscription, with the same
  /// values, in the same order ("Detailed design" in the operators guide).
  @inlinable
  public func filter(_ isIncluded: @escaping (T) -> Bool) -> ValueObservable<T> {
    if let stage = self as? FusibleStage<T> {
      return stage.fusingFilter(isIncluded)
    }
    return FusibleStage<T>(
      connectNext: { next in
        self.connectNext { value in
          if isIncluded(value) { next(value) }
        }
      },
      fusingFilter: { second in
        let functions = FilterFilterFunctions(isIncluded, second)
        return ValueObservable<T>.connectingNext { next in
          self.connectNext { value in
            if functions.first(value) && functions.second(value) { next(value) }
          }
        }
      })
  }
}
