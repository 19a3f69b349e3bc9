extension ValueObservable {
  /// Pairs the values of this stream and `other` in order: the first of each, then the second of
  /// each, and so on.
  ///
  /// ```swift
  /// // requests r1, r2, then responses a1, a2  →  (r1, a1), (r2, a2)
  /// ```
  ///
  /// A pair is passed on when the value that completes it arrives, on that value's thread.
  ///
  /// **Unpaired values wait.** With no completion, nothing ever says that a partner will not
  /// come: a value with no partner yet waits in its subscription's buffer until one arrives, and
  /// is dropped, unpaired, when the subscription ends. The buffer has no bound, as Combine's has
  /// none: when one stream delivers more often than the other, it grows by the difference for as
  /// long as the subscription lasts. Dropping values to bound it would silently pair the wrong
  /// values, so zip only streams that deliver in step (a request and its response, a job and its
  /// result); for streams that deliver at their own rates, ``combineLatest(_:)`` pairs the latest
  /// values instead. A buffer that stays short allocates nothing per value.
  ///
  /// Subscribing subscribes to this stream first, then to `other`; unsubscribing unsubscribes
  /// from both. Each subscription has its own buffers.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the two streams must not
  ///   deliver on two threads at once.
  @inlinable
  public func zip<U>(_ other: ValueObservable<U>) -> ValueObservable<(T, U)> {
    ValueObservable<(T, U)>.connectingNext { next in
      var waitingLeft = PendingValues<T>()
      var waitingRight = PendingValues<U>()
      let disconnectLeft = self.connectNext { value in
        if let right = waitingRight.popFirst() {
          next((value, right))
        } else {
          waitingLeft.append(value)
        }
      }
      let disconnectRight = other.connectNext { value in
        if let left = waitingLeft.popFirst() {
          next((left, value))
        } else {
          waitingRight.append(value)
        }
      }
      return {
        disconnectLeft()
        disconnectRight()
      }
    }
  }

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
  /// Written as `zip(_:)` of `zip(_:)` (one operator, one implementation): the same triples,
  /// at the same moments.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func zip<U, V>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>
  ) -> ValueObservable<(T, U, V)> {
    zip(second).zip(third).map { values in (values.0.0, values.0.1, values.1) }
  }

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
  /// Written as `zip(_:)` of `zip(_:)` (one operator, one implementation): the same quadruples,
  /// at the same moments.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func zip<U, V, W>(
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>,
    _ fourth: ValueObservable<W>
  ) -> ValueObservable<(T, U, V, W)> {
    zip(second, third).zip(fourth).map { values in
      (values.0.0, values.0.1, values.0.2, values.1)
    }
  }
}
