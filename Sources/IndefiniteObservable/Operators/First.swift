extension ValueObservable {
  /// Passes on the first value of each subscription, then disconnects from this stream;
  /// Combine's `first()`, RxSwift's `take(1)`.
  ///
  /// ```swift
  /// let numbers = ValueObservable<Int> { observer in
  ///   for n in 1...3 { observer.next(n) }
  ///   return noopDisconnect
  /// }.first()
  /// // delivers 1
  /// ```
  ///
  /// ``prefix(_:)`` with a length of 1, and it ends as that does: a stream has no completion to
  /// send, so the subscriber simply receives nothing more, and the upstream is disconnected
  /// *before* the value is passed on (when the value arrives while the stream is connecting, as
  /// soon as the connect returns, before `subscribe` returns). Unsubscribing afterwards does
  /// nothing more; the upstream is disconnected exactly once. RxSwift's `first()` is a `Single`,
  /// which this package has no type for; this stream delivers the same value.
  ///
  /// - Threading: like every operator (see ``ValueObservable``). Disconnecting, by the value or
  ///   by `unsubscribe()`, happens once, whichever comes first and on whichever thread.
  @inlinable
  public func first() -> ValueObservable<T> {
    prefix(1)
  }

  /// Passes on the first value of each subscription for which `predicate` returns `true`, then
  /// disconnects from this stream; Combine's `first(where:)`, RxSwift's `filter(_:).take(1)`.
  ///
  /// ```swift
  /// let numbers = ValueObservable<Int> { observer in
  ///   for n in [1, 4, 6] { observer.next(n) }
  ///   return noopDisconnect
  /// }.first(where: { $0.isMultiple(of: 2) })
  /// // delivers 4
  /// ```
  ///
  /// `filter(predicate).prefix(1)`: `predicate` runs synchronously on the delivering thread, once
  /// per value and subscription until one matches; the stream then ends as ``first()`` does, by
  /// disconnecting from this stream before the matching value is passed on.
  /// A stream that never sends a matching value stays connected until it is unsubscribed.
  ///
  /// - Threading: like every operator (see ``ValueObservable``). Disconnecting, by the matching
  ///   value or by `unsubscribe()`, happens once, whichever comes first and on whichever thread.
  @inlinable
  public func first(where predicate: @escaping (T) -> Bool) -> ValueObservable<T> {
    filter(predicate).prefix(1)
  }
}
