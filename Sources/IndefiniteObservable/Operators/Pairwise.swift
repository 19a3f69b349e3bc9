extension ValueObservable {
  /// Each value with the one before it, from the second value of each subscription on:
  /// `(previous, current)`. RxSwiftExt's `pairwise()`; what KVO's `.old` and `.new` options gave a
  /// change.
  ///
  /// ```swift
  /// let temperature = CurrentValue(20)
  /// temperature.pairwise().subscribe { print("\($0.previous) → \($0.current)") }
  /// temperature.value = 22  // prints "20 → 22": the current value replayed, then the change
  /// ```
  ///
  /// - Connects: once per subscription, at once; disconnecting the subscription disconnects the
  ///   upstream. The first value of each subscription is kept, not delivered.
  /// - Threading and lifetime: as the upstream's; the operator keeps the last value of each
  ///   subscription (released when it ends), and does not synchronize.
  /// - Returns: The pairs, as a stream.
  @inlinable
  public func pairwise() -> ValueObservable<(previous: T, current: T)> {
    ValueObservable<(previous: T, current: T)>.connectingNext { next in
      var previous: T?
      return self.connectNext { value in
        defer { previous = value }
        if let previous { next((previous, value)) }
      }
    }
  }
}
