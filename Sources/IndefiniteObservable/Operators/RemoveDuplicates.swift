extension ValueObservable {
  /// Passes on a value only when `isDuplicate` says it differs from the last value passed on.
  ///
  /// The first value of each subscription always passes. Each subscription remembers its own
  /// last value, from subscribe to unsubscribe.
  @inlinable
  public func removeDuplicates(
    by isDuplicate: @escaping (_ previous: T, _ current: T) -> Bool
  ) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      var last: T?
      return self.connectNext { value in
        if let previous = last, isDuplicate(previous, value) { return }
        last = value
        next(value)
      }
    }
  }
}

extension ValueObservable where T: Equatable {
  /// Passes on a value only when it differs from the last value passed on.
  ///
  /// ```swift
  /// // 1, 1, 2, 2, 1 becomes 1, 2, 1
  /// ```
  @inlinable
  public func removeDuplicates() -> ValueObservable<T> {
    removeDuplicates(by: ==)
  }
}
