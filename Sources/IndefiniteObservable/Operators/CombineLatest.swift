extension ValueObservable {
  /// Passes on a pair of the latest values of both streams whenever either delivers, once both
  /// have delivered at least once.
  ///
  /// ```swift
  /// // width 1, height 10, width 2  →  (1, 10), (2, 10)
  /// ```
  ///
  /// Each subscription keeps its own latest values. The two streams must not deliver on two
  /// threads at once (see ``ValueObservable``).
  @inlinable
  public func combineLatest<U>(_ other: ValueObservable<U>) -> ValueObservable<(T, U)> {
    ValueObservable<(T, U)>.connectingNext { next in
      var latestLeft: T?
      var latestRight: U?
      let disconnectLeft = self.connectNext { value in
        latestLeft = value
        if let right = latestRight { next((value, right)) }
      }
      let disconnectRight = other.connectNext { value in
        latestRight = value
        if let left = latestLeft { next((left, value)) }
      }
      return {
        disconnectLeft()
        disconnectRight()
      }
    }
  }

  /// Passes on a triple of the latest values of this stream, `second` and `third` whenever any
  /// of them delivers, once all three have delivered at least once; Combine's `CombineLatest3`.
  ///
  /// ```swift
  /// // x 1, y 2, z 3, x 4  →  (1, 2, 3), (4, 2, 3)
  /// ```
  ///
  /// Each subscription keeps its own latest values, and values that arrive before all three
  /// streams have delivered only update them. Subscribing subscribes to the streams in order;
  /// unsubscribing unsubscribes from all three. For any number of streams of one type, see
  /// `Sequence.combineLatest()`.
  ///
  /// Written as `combineLatest(_:)` of `combineLatest(_:)` (one operator, one
  /// implementation): the same triples, at the same moments.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func combineLatest<U, V>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>
  ) -> ValueObservable<(T, U, V)> {
    combineLatest(second).combineLatest(third).map { values in
      (values.0.0, values.0.1, values.1)
    }
  }

  /// Passes on a quadruple of the latest values of this stream, `second`, `third` and `fourth`
  /// whenever any of them delivers, once all four have delivered at least once; Combine's
  /// `CombineLatest4`, RxSwift's `combineLatest` of four sources.
  ///
  /// ```swift
  /// let red = Emitter<Int>()
  /// let green = Emitter<Int>()
  /// let blue = Emitter<Int>()
  /// let alpha = Emitter<Double>()
  /// var colors: [String] = []
  /// let mixing = red.combineLatest(green, blue, alpha)
  ///   .subscribe { colors.append("\($0) \($1) \($2) \($3)") }
  /// red.send(255)
  /// green.send(128)
  /// blue.send(0)
  /// alpha.send(1)
  /// alpha.send(0.5)
  /// // colors == ["255 128 0 1.0", "255 128 0 0.5"]
  /// ```
  ///
  /// Everything else is as ``combineLatest(_:_:)`` says, for four streams: each subscription
  /// keeps its own latest values, and values that arrive before all four streams have delivered
  /// only update them; subscribing subscribes to the streams in order, and unsubscribing
  /// unsubscribes from all four, in the same order. For more streams, nest them:
  /// `a.combineLatest(b, c, d).combineLatest(e, f)` passes on `((a, b, c, d), e, f)` exactly
  /// when a flat combination of six would pass on `(a, b, c, d, e, f)`. For any number of
  /// streams of one type, see `Sequence.combineLatest()`.
  ///
  /// Written as `combineLatest(_:)` of `combineLatest(_:)` (one operator, one
  /// implementation): the same quadruples, at the same moments.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func combineLatest<U, V, W>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>,
    _ fourth: ValueObservable<W>
  ) -> ValueObservable<(T, U, V, W)> {
    combineLatest(second, third).combineLatest(fourth).map { values in
      (values.0.0, values.0.1, values.0.2, values.1)
    }
  }
}
