extension ValueObservable {
  /// Passes on only the values for which `isIncluded` returns `true`.
  ///
  /// `isIncluded` runs synchronously on the delivering thread, once per value and subscription.
  @inlinable
  public func filter(_ isIncluded: @escaping (T) -> Bool) -> ValueObservable<T> {
    ValueObservable<T>(connectNext: { next in
      self.connectNext { value in
        if isIncluded(value) { next(value) }
      }
    })
  }
}
