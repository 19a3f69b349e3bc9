extension ValueObservable {
  /// Transforms every value with `transform`.
  ///
  /// `transform` runs synchronously on the delivering thread, once per value and subscription.
  /// A `filter` applied to the result runs in the same stage ("Detailed design" in the operators
  /// guide).
  ///
  /// ```swift
  /// let lengths = ValueObservable<String> { observer in
  ///   observer.next("motion")
  ///   return noopDisconnect
  /// }.map { $0.count }
  /// ```
  @inlinable
  public func map<U>(_ transform: @escaping (T) -> U) -> ValueObservable<U> {
    FusibleStage<U>(
      connectNext: { next in
        self.connectNext { next(transform($0)) }
      },
      fusingFilter: { isIncluded in
        let functions = MapFilterFunctions(transform, isIncluded)
        return ValueObservable<U>.connectingNext { next in
          self.connectNext { value in
            let transformed = functions.transform(value)
            if functions.isIncluded(transformed) { next(transformed) }
          }
        }
      })
  }
}
