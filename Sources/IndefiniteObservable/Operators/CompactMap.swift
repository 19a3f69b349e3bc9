extension ValueObservable {
  /// Transforms every value with `transform` and passes on the results that are not `nil`.
  ///
  /// ```swift
  /// let numbers = ValueObservable<String> { observer in
  ///   for text in ["1", "two", "3"] { observer.next(text) }
  ///   return noopDisconnect
  /// }.compactMap { Int($0) }
  /// // delivers 1, then 3
  /// ```
  @inlinable
  public func compactMap<U>(_ transform: @escaping (T) -> U?) -> ValueObservable<U> {
    ValueObservable<U>.connectingNext { next in
      self.connectNext { value in
        if let transformed = transform(value) { next(transformed) }
      }
    }
  }
}
