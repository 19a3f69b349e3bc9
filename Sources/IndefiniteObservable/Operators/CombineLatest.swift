extension ValueObservable {
  /// Passes on a pair of the latest values of both streams whenever either delivers, once both
  /// have delivered at least once.
  ///
  /// ```swift
  /// // width 1, height 10, width 2  →  (1, 10), (2, 10)
  /// ```
  ///
  /// Each subscription keeps its own latest values. The two streams must not deliver on two
  /// threads at once (see ``ValueObservable``).
  @inlinable
  public func combineLatest<U>(_ other: ValueObservable<U>) -> ValueObservable<(T, U)> {
    ValueObservable<(T, U)>.connectingNext { next in
      var latestLeft: T?
      var latestRight: U?
      let disconnectLeft = self.connectNext { value in
        latestLeft = value
        if let right = latestRight { next((value, right)) }
      }
      let disconnectRight = other.connectNext { value in
        latestRight = value
        if let left = latestLeft { next((left, value)) }
      }
      return {
        disconnectLeft()
        disconnectRight()
      }
    }
  }
}
