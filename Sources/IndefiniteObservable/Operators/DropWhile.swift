extension ValueObservable {
  /// Drops values while `predicate` returns `true`, then passes on the first value for which it
  /// returns `false` and every value after it; Combine's `drop(while:)`, RxSwift's
  /// `skip(while:)`.
  ///
  /// ```swift
  /// let numbers = ValueObservable<Int> { observer in
  ///   for n in [1, 2, 5, 3] { observer.next(n) }
  ///   return noopDisconnect
  /// }.drop(while: { $0 < 4 })
  /// // delivers 5, 3
  /// ```
  ///
  /// Once a value has failed, `predicate` is not called again. Each subscription tests its own
  /// values, from subscribe on: values that the stream sends synchronously while connecting (a
  /// replayed current value, for example) are tested like any other. The upstream stays
  /// connected until the subscription ends.
  ///
  /// `predicate` runs synchronously on the delivering thread, once per value and subscription
  /// until one fails.
  ///
  /// - Threading: like every operator (see ``ValueObservable``); whether values pass is the
  ///   subscription's own state and is not synchronized.
  @inlinable
  public func drop(while predicate: @escaping (T) -> Bool) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      var isDropping = true
      return self.connectNext { value in
        if isDropping {
          guard !predicate(value) else { return }
          isDropping = false
        }
        next(value)
      }
    }
  }
}
