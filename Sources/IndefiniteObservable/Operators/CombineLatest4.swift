extension ValueObservable {
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
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func combineLatest<U, V, W>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>,
    _ fourth: ValueObservable<W>
  ) -> ValueObservable<(T, U, V, W)> {
    ValueObservable<(T, U, V, W)>.connectingNext { next in
      var latest1: T?
      var latest2: U?
      var latest3: V?
      var latest4: W?
      let disconnect1 = self.connectNext { value in
        latest1 = value
        if let v2 = latest2, let v3 = latest3, let v4 = latest4 { next((value, v2, v3, v4)) }
      }
      let disconnect2 = second.connectNext { value in
        latest2 = value
        if let v1 = latest1, let v3 = latest3, let v4 = latest4 { next((v1, value, v3, v4)) }
      }
      let disconnect3 = third.connectNext { value in
        latest3 = value
        if let v1 = latest1, let v2 = latest2, let v4 = latest4 { next((v1, v2, value, v4)) }
      }
      let disconnect4 = fourth.connectNext { value in
        latest4 = value
        if let v1 = latest1, let v2 = latest2, let v3 = latest3 { next((v1, v2, v3, value)) }
      }
      return {
        disconnect1()
        disconnect2()
        disconnect3()
        disconnect4()
      }
    }
  }
}
