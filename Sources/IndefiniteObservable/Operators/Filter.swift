extension ValueObservable {
  /// Passes on only the values for which `isIncluded` returns `true`.
  ///
  /// `isIncluded` runs synchronously on the delivering thread, once per value and subscription.
  @inlinable
  public func filter(_ isIncluded: @escaping (T) -> Bool) -> ValueObservable<T> {
    ValueObservable<T> { observer in
      let next = observer.next
      return self.subscribe { value in
        if isIncluded(value) { next(value) }
      }.unsubscribe
    }
  }
}
