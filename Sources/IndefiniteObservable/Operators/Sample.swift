extension ValueObservable {
  /// Passes on, at each value of `trigger`, the latest value of this stream, if one has arrived
  /// since the previous value of `trigger`; RxSwift's `sample(_:)` (Combine has no such operator).
  ///
  /// ```swift
  /// let positions = Emitter<Int>()
  /// let frames = Emitter<Void>()
  /// var drawn: [Int] = []
  /// let drawing = positions.sample(frames).subscribe { drawn.append($0) }
  /// positions.send(1)
  /// positions.send(2)
  /// frames.send()
  /// frames.send()
  /// positions.send(3)
  /// frames.send()
  /// // drawn == [2, 3]
  /// ```
  ///
  /// Only `trigger`'s values cause a delivery, and each passes on a value of this stream at most
  /// once: a value of `trigger` that finds no new value passes nothing on. The value of
  /// `trigger` itself is not passed on. The value held waiting for `trigger` is the
  /// subscription's own, and is released when it is passed on or the subscription ends. RxSwift's
  /// `defaultValue:`, sent when no new value has arrived, has no counterpart here.
  ///
  /// Subscribing connects this stream first, then `trigger`, as RxSwift does, so that a value
  /// this stream sends while connecting (a current value) is there for a value `trigger` sends
  /// while connecting; unsubscribing disconnects them in that order, each once.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the two streams must not
  ///   deliver on two threads at once.
  @inlinable
  public func sample<U>(_ trigger: ValueObservable<U>) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      var latest: T?
      let disconnectSelf = self.connectNext { value in
        latest = value
      }
      let disconnectTrigger = trigger.connectNext { _ in
        if let value = latest.take() { next(value) }
      }
      return {
        disconnectSelf()
        disconnectTrigger()
      }
    }
  }
}
