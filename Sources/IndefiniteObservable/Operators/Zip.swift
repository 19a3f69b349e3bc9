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
}
