extension ValueObservable {
  /// Passes on every value but the first `count` of each subscription.
  ///
  /// ```swift
  /// let numbers = ValueObservable<Int> { observer in
  ///   for n in 1...5 { observer.next(n) }
  ///   return noopDisconnect
  /// }.dropFirst(2)
  /// // delivers 3, 4, 5
  /// ```
  ///
  /// Each subscription counts its own values, from subscribe on; values that the stream sends
  /// synchronously while connecting (a replayed current value, for example) count like any other.
  /// So `dropFirst()` on a stream that starts with its current value gives only the changes that
  /// follow it. A `count` of zero or less drops nothing: the stream is returned as it is.
  ///
  /// - Threading: like every operator (see ``ValueObservable``); the count is the subscription's
  ///   own and is not synchronized.
  @inlinable
  public func dropFirst(_ count: Int = 1) -> ValueObservable<T> {
    guard count > 0 else { return self }
    return ValueObservable<T>.connectingNext { next in
      var remaining = count
      return self.connectNext { value in
        if remaining > 0 {
          remaining -= 1
        } else {
          next(value)
        }
      }
    }
  }
}
