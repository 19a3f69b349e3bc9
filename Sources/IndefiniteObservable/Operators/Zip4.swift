extension ValueObservable {
  /// Pairs the values of this stream, `second`, `third` and `fourth` in order: the first of each,
  /// then the second of each, and so on; Combine's `Zip4`.
  ///
  /// ```swift
  /// let red = Emitter<Int>()
  /// let green = Emitter<Int>()
  /// let blue = Emitter<Int>()
  /// let alpha = Emitter<Double>()
  /// var colors: [String] = []
  /// let mixing = red.zip(green, blue, alpha).subscribe { colors.append("\($0) \($1) \($2) \($3)") }
  /// red.send(255)
  /// green.send(128)
  /// blue.send(0)
  /// alpha.send(0.5)
  /// // colors == ["255 128 0 0.5"]
  /// ```
  ///
  /// Everything else is as ``zip(_:_:)`` says, for four streams: a value waits for its partners
  /// in its subscription's unbounded buffer and is dropped, unpaired, when the subscription ends;
  /// subscribing and unsubscribing take the streams in order.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func zip<U, V, W>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>,
    _ fourth: ValueObservable<W>
  ) -> ValueObservable<(T, U, V, W)> {
    ValueObservable<(T, U, V, W)>.connectingNext { next in
      // At least one buffer is empty at any time (see `zip(_:_:)`).
      var waiting1 = PendingValues<T>()
      var waiting2 = PendingValues<U>()
      var waiting3 = PendingValues<V>()
      var waiting4 = PendingValues<W>()
      let disconnect1 = self.connectNext { value in
        if waiting2.isEmpty || waiting3.isEmpty || waiting4.isEmpty {
          waiting1.append(value)
        } else if let v2 = waiting2.popFirst(), let v3 = waiting3.popFirst(),
          let v4 = waiting4.popFirst()
        {
          next((value, v2, v3, v4))
        }
      }
      let disconnect2 = second.connectNext { value in
        if waiting1.isEmpty || waiting3.isEmpty || waiting4.isEmpty {
          waiting2.append(value)
        } else if let v1 = waiting1.popFirst(), let v3 = waiting3.popFirst(),
          let v4 = waiting4.popFirst()
        {
          next((v1, value, v3, v4))
        }
      }
      let disconnect3 = third.connectNext { value in
        if waiting1.isEmpty || waiting2.isEmpty || waiting4.isEmpty {
          waiting3.append(value)
        } else if let v1 = waiting1.popFirst(), let v2 = waiting2.popFirst(),
          let v4 = waiting4.popFirst()
        {
          next((v1, v2, value, v4))
        }
      }
      let disconnect4 = fourth.connectNext { value in
        if waiting1.isEmpty || waiting2.isEmpty || waiting3.isEmpty {
          waiting4.append(value)
        } else if let v1 = waiting1.popFirst(), let v2 = waiting2.popFirst(),
          let v3 = waiting3.popFirst()
        {
          next((v1, v2, v3, value))
        }
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
