extension ValueObservable {
  /// Pairs the values of this stream, `second` and `third` in order: the first of each, then the
  /// second of each, and so on; Combine's `Zip3`.
  ///
  /// ```swift
  /// let names = Emitter<String>()
  /// let ages = Emitter<Int>()
  /// let cities = Emitter<String>()
  /// var people: [String] = []
  /// let pairing = names.zip(ages, cities).subscribe { people.append("\($0), \($1), \($2)") }
  /// names.send("Ada")
  /// ages.send(36)
  /// cities.send("London")
  /// // people == ["Ada, 36, London"]
  /// ```
  ///
  /// A triple is passed on when the value that completes it arrives, on that value's thread.
  /// As with ``zip(_:)``, a value with no partners yet waits in its subscription's buffer, which
  /// has no bound, and is dropped, unpaired, when the subscription ends: zip streams that deliver
  /// in step. A buffer that stays short allocates nothing per value.
  ///
  /// Subscribing subscribes to the streams in order; unsubscribing unsubscribes from all three,
  /// in the same order. Each subscription has its own buffers.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func zip<U, V>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>
  ) -> ValueObservable<(T, U, V)> {
    ValueObservable<(T, U, V)>.connectingNext { next in
      // At least one buffer is empty at any time: a value finds the others all waiting only when
      // its own buffer is empty, and then it completes a triple instead of waiting.
      var waitingFirst = PendingValues<T>()
      var waitingSecond = PendingValues<U>()
      var waitingThird = PendingValues<V>()
      let disconnectFirst = self.connectNext { value in
        if waitingSecond.isEmpty || waitingThird.isEmpty {
          waitingFirst.append(value)
        } else if let second = waitingSecond.popFirst(), let third = waitingThird.popFirst() {
          next((value, second, third))
        }
      }
      let disconnectSecond = second.connectNext { value in
        if waitingFirst.isEmpty || waitingThird.isEmpty {
          waitingSecond.append(value)
        } else if let first = waitingFirst.popFirst(), let third = waitingThird.popFirst() {
          next((first, value, third))
        }
      }
      let disconnectThird = third.connectNext { value in
        if waitingFirst.isEmpty || waitingSecond.isEmpty {
          waitingThird.append(value)
        } else if let first = waitingFirst.popFirst(), let second = waitingSecond.popFirst() {
          next((first, second, value))
        }
      }
      return {
        disconnectFirst()
        disconnectSecond()
        disconnectThird()
      }
    }
  }
}
