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
    ValueObservable<U>(connectNext: { next in
      self.connectNext { next(transform($0)) }
    })
  }
}
