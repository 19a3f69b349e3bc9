extension ValueObservable {
  /// Passes on only the value at `index` of each subscription (counting from 0), then
  /// disconnects from this stream; Combine's `output(at:)`.
  ///
  /// ```swift
  /// let taps = Emitter<String>()
  /// var third: [String] = []
  /// let watching = taps.output(at: 2).subscribe { third.append($0) }
  /// for tap in ["a", "b", "c", "d"] { taps.send(tap) }
  /// // third == ["c"]
  /// ```
  ///
  /// `dropFirst(index).prefix(1)`: the values before it are counted and dropped, and with no
  /// completion to send, the stream ends as ``prefix(_:)`` does, by disconnecting from this
  /// stream before the value is passed on. Values sent while connecting count like any other.
  ///
  /// A negative `index` names no value: the stream passes nothing on and never connects (Combine
  /// stops the program there).
  ///
  /// - Threading: like ``prefix(_:)``: the upstream is disconnected once, by the value or by
  ///   `unsubscribe()`, whichever comes first and on whichever thread.
  @inlinable
  public func output(at index: Int) -> ValueObservable<T> {
    guard index >= 0 else { return prefix(0) }
    return dropFirst(index).prefix(1)
  }
}
