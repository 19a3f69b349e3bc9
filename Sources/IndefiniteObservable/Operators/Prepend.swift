extension ValueObservable {
  /// Sends `values` to each new subscriber first, then the values of this stream.
  ///
  /// ```swift
  /// let withPlaceholder = ValueObservable<String> { _ in noopDisconnect }.prepend("loading…")
  /// ```
  @inlinable
  public func prepend(_ values: T...) -> ValueObservable<T> {
    prepend(values)
  }

  /// Sends the elements of `values` to each new subscriber first, then the values of this stream.
  ///
  /// The sequence is copied into an array when the stream is made, so it is iterated once.
  @inlinable
  public func prepend<S: Sequence>(_ values: S) -> ValueObservable<T> where S.Element == T {
    let values = Array(values)
    return ValueObservable<T>.connectingNext { next in
      for value in values { next(value) }
      return self.connectNext(next)
    }
  }
}
