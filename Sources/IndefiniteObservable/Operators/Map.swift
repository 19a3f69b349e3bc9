extension ValueObservable {
  /// Transforms every value with `transform`.
  ///
  /// `transform` runs synchronously on the delivering thread, once per value and subscription.
  ///
  /// ```swift
  /// let lengths = ValueObservable<String> { observer in
  ///   observer.next("motion")
  ///   return noopDisconnect
  /// }.map { $0.count }
  /// ```
  @inlinable
  public func map<U>(_ transform: @escaping (T) -> U) -> ValueObservable<U> {
    ValueObservable<U> { observer in
      let next = observer.next
      return self.subscribe { next(transform($0)) }.unsubscribe
    }
  }
}
