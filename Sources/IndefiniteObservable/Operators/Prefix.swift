extension ValueObservable {
  /// Passes on the first `maxLength` values of each subscription, then disconnects from this
  /// stream.
  ///
  /// ```swift
  /// let numbers = ValueObservable<Int> { observer in
  ///   for n in 1...5 { observer.next(n) }
  ///   return noopDisconnect
  /// }.prefix(2)
  /// // delivers 1, 2
  /// ```
  ///
  /// A stream has no completion to send, so once `maxLength` values have passed, the subscriber
  /// simply receives nothing more, and the upstream subscription ends:
  ///
  /// - When the last value arrives after subscribing has returned, the upstream is disconnected
  ///   *before* that value is passed on: the subscriber receives it from a stream that is no
  ///   longer connected, and a value the subscriber causes the source to send meanwhile is not
  ///   passed on.
  /// - When it arrives while the stream is still connecting (the stream sends its values
  ///   synchronously on subscribe), the upstream is disconnected as soon as its connect returns,
  ///   before `subscribe` returns.
  ///
  /// Combine's `prefix` (as OpenCombine shows) cancels its upstream only when the value after the
  /// last one arrives; this one lets go at once, so a source that never sends again is not kept.
  /// Unsubscribing afterwards does nothing more; unsubscribing before the last value disconnects
  /// as usual. The upstream's disconnect is called from inside its own value callback: every
  /// source of this package allows it.
  ///
  /// A `maxLength` of zero or less passes nothing on and never connects to this stream.
  ///
  /// - Threading: like every operator (see ``ValueObservable``). Disconnecting, by the last value
  ///   or by `unsubscribe()`, happens once, whichever comes first and on whichever thread.
  @inlinable
  public func prefix(_ maxLength: Int) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      guard maxLength > 0 else { return noopDisconnect }
      var remaining = maxLength
      let upstream = SerialDisconnect()
      let disconnect = self.connectNext { value in
        guard remaining > 0 else { return }
        remaining -= 1
        if remaining == 0 { upstream.end() }
        next(value)
      }
      // If the last value came during connect, the slot has ended and disconnects at once.
      upstream.replace(with: disconnect)
      return upstream.end
    }
  }
}
