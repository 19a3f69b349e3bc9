extension ValueObservable {
  /// Maps every value to a stream with `transform`, and passes on the values of the latest of
  /// those streams only: `map(transform).switchToLatest()` (RxSwift's `flatMapLatest`).
  ///
  /// ```swift
  /// let queries = ValueObservable<String> { observer in
  ///   observer.next("sw")
  ///   observer.next("swift")
  ///   return noopDisconnect
  /// }
  /// let results = queries.flatMapLatest { query in
  ///   ValueObservable<String> { observer in
  ///     observer.next("results for \(query)")
  ///     return noopDisconnect
  ///   }
  /// }
  /// // delivers "results for sw", then "results for swift"
  /// ```
  ///
  /// `transform` runs synchronously on the delivering thread, once per value and subscription.
  /// Everything else is as ``switchToLatest()`` says: the previous stream is disconnected before
  /// the next one connects, nothing of an older stream is passed on, and unsubscribing
  /// disconnects the latest stream before this one, as Combine does.
  @inlinable
  public func flatMapLatest<U>(
    _ transform: @escaping (T) -> ValueObservable<U>
  ) -> ValueObservable<U> {
    map(transform).switchToLatest()
  }
}
