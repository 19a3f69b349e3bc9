extension ValueObservable {
  /// Passes on every value of a stream of optionals, with `output` in place of each nil;
  /// Combine's `replaceNil(with:)`.
  ///
  /// ```swift
  /// let nicknames = Emitter<String?>()
  /// var shown: [String] = []
  /// let showing = nicknames.replaceNil(with: "anonymous").subscribe { shown.append($0) }
  /// nicknames.send("ada")
  /// nicknames.send(nil)
  /// // shown == ["ada", "anonymous"]
  /// ```
  ///
  /// A `map`: the stream keeps `output` alive, and a `filter` applied to the result runs in the
  /// same stage.
  @inlinable
  public func replaceNil<Wrapped>(with output: Wrapped) -> ValueObservable<Wrapped>
  where T == Wrapped? {
    map { $0 ?? output }
  }
}
