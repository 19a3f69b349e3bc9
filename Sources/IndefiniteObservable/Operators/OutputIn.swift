extension ValueObservable {
  /// Passes on only the values whose positions in each subscription (counting from 0) are in
  /// `range`, then disconnects from this stream; Combine's `output(in:)`.
  ///
  /// ```swift
  /// let pages = Emitter<Int>()
  /// var shown: [Int] = []
  /// let paging = pages.output(in: 1..<3).subscribe { shown.append($0) }
  /// for page in 10...14 { pages.send(page) }
  /// // shown == [11, 12]
  /// ```
  ///
  /// `dropFirst(lower).prefix(count)`: the values before the range are counted and dropped, and
  /// once its last value has passed, the stream ends as ``prefix(_:)`` does, by disconnecting
  /// from this stream before that value is passed on. A range with no upper bound (`2...`) never
  /// ends. Values sent while connecting count like any other.
  ///
  /// Positions below 0 name no value, so a range that starts below 0 starts at 0 (`-2..<3` is
  /// `0..<3`), and an empty range passes nothing on and never connects (Combine stops the
  /// program on a negative bound). Every range is accepted, `...Int.max` included.
  ///
  /// - Threading: like ``prefix(_:)``: the upstream is disconnected once, by the last value or
  ///   by `unsubscribe()`, whichever comes first and on whichever thread.
  @inlinable
  public func output<R: RangeExpression>(in range: R) -> ValueObservable<T> where R.Bound == Int {
    // Every range but one that ends at `Int.max` inclusive fits `relative(to:)` of all positions;
    // the closed forms that might are told apart first, so that none computes `Int.max + 1`.
    let lower: Int
    let upper: Int?  // exclusive; nil for no end
    if let closed = range as? ClosedRange<Int> {
      lower = closed.lowerBound
      upper = closed.upperBound == .max ? nil : closed.upperBound + 1
    } else if let through = range as? PartialRangeThrough<Int> {
      lower = 0
      upper = through.upperBound == .max ? nil : through.upperBound + 1
    } else {
      let positions = range.relative(to: Int.min..<Int.max)
      lower = positions.lowerBound
      upper = positions.upperBound == .max ? nil : positions.upperBound
    }
    let first = Swift.max(lower, 0)
    guard let upper else { return dropFirst(first) }
    guard upper > first else { return prefix(0) }
    return dropFirst(first).prefix(upper - first)
  }
}
