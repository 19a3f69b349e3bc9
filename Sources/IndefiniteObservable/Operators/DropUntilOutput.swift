extension ValueObservable {
  /// Drops the values of this stream until `other` delivers a value, then disconnects from
  /// `other` and passes on every value that follows; Combine's `drop(untilOutputFrom:)`,
  /// RxSwift's `skip(until:)`.
  ///
  /// ```swift
  /// let readings = Emitter<Int>()
  /// let calibrated = Emitter<Void>()
  /// var kept: [Int] = []
  /// let reading = readings.drop(untilOutputFrom: calibrated).subscribe { kept.append($0) }
  /// readings.send(1)
  /// calibrated.send()
  /// readings.send(2)
  /// // kept == [2]; calibrated has no subscriber left
  /// ```
  ///
  /// The value of `other` is not passed on; only its arrival counts. `other` is disconnected
  /// from inside that delivery, and this stream stays connected until the subscription ends.
  ///
  /// Subscribing connects `other` first, then this stream, as Combine and RxSwift do. So when
  /// `other` delivers while it connects (a current value, say), it is disconnected before this
  /// stream connects, and every value of this stream is passed on. Unsubscribing disconnects
  /// `other` (unless its value has done so), then this stream; each is disconnected exactly
  /// once. Each subscription waits for its own value of `other`.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the two streams must not
  ///   deliver on two threads at once. `other` is disconnected once, by its value or by
  ///   `unsubscribe()`, whichever comes first and on whichever thread.
  @inlinable
  public func drop<U>(untilOutputFrom other: ValueObservable<U>) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      var isPassing = false
      let trigger = SerialDisconnect()
      let disconnectTrigger = other.connectNext { _ in
        guard !isPassing else { return }
        isPassing = true
        trigger.end()
      }
      // If `other` delivered during connect, the slot has ended and disconnects at once.
      trigger.replace(with: disconnectTrigger)
      let disconnectUpstream = self.connectNext { value in
        if isPassing { next(value) }
      }
      return {
        trigger.end()
        disconnectUpstream()
      }
    }
  }
}
