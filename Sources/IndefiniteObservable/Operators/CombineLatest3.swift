extension ValueObservable {
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
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func combineLatest<U, V>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>
  ) -> ValueObservable<(T, U, V)> {
    ValueObservable<(T, U, V)>.connectingNext { next in
      var latestFirst: T?
      var latestSecond: U?
      var latestThird: V?
      let disconnectFirst = self.connectNext { value in
        latestFirst = value
        if let second = latestSecond, let third = latestThird { next((value, second, third)) }
      }
      let disconnectSecond = second.connectNext { value in
        latestSecond = value
        if let first = latestFirst, let third = latestThird { next((first, value, third)) }
      }
      let disconnectThird = third.connectNext { value in
        latestThird = value
        if let first = latestFirst, let second = latestSecond { next((first, second, value)) }
      }
      return {
        disconnectFirst()
        disconnectSecond()
        disconnectThird()
      }
    }
  }
}
