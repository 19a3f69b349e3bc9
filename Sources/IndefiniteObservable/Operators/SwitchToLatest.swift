extension ValueObservable {
  /// Passes on the values of the latest stream that this stream of streams has delivered, and
  /// disconnects from the one before it.
  ///
  /// ```swift
  /// func just(_ value: Int) -> ValueObservable<Int> {
  ///   ValueObservable { observer in
  ///     observer.next(value)
  ///     return noopDisconnect
  ///   }
  /// }
  /// let streams = ValueObservable<ValueObservable<Int>> { observer in
  ///   observer.next(just(1))
  ///   observer.next(just(2))
  ///   return noopDisconnect
  /// }
  /// let latest = streams.switchToLatest()
  /// // delivers 1, then 2 (having disconnected from the first stream)
  /// ```
  ///
  /// When a new stream arrives, the previous one is disconnected first, then the new one is
  /// connected: no value of an older stream is passed on once a newer one has arrived, even one
  /// that an older stream was still sending synchronously while it connected. Until this stream
  /// delivers its first stream, nothing is passed on. There is no completion to wait for: the
  /// latest stream stays connected until a newer one arrives or the subscription ends.
  /// Unsubscribing disconnects the latest stream first, while this stream is still connected,
  /// then this stream, as Combine does (a stream this one delivers meanwhile is disconnected as
  /// soon as it has connected).
  ///
  /// The streams delivered may be of any kind of stream of `U` (emitters, current values).
  /// Each subscription connects its own inner streams. Connecting one allocates what its stream
  /// allocates to subscribe; the values of the latest stream pass through with no allocation.
  /// ``flatMapLatest(_:)`` is the same with the `map` built in.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): this stream and the streams it
  ///   delivers must not deliver on two threads at once. Unsubscribing may run on another thread:
  ///   an inner stream that connects while it does is disconnected at once, never left connected.
  @inlinable
  public func switchToLatest<U>() -> ValueObservable<U> where T: ValueObservable<U> {
    ValueObservable<U>.connectingNext { next in
      let inner = SerialDisconnect()
      // Counts the streams received; an inner stream's values pass only while it is the latest.
      var latest = 0
      let disconnectOuter = self.connectNext { stream in
        latest &+= 1
        let generation = latest
        inner.disconnectCurrent()
        let disconnect = stream.connectNext { value in
          if generation == latest { next(value) }
        }
        if generation == latest {
          inner.replace(with: disconnect)
        } else {
          disconnect()  // A newer stream arrived while this one connected.
        }
      }
      // The latest stream first, while this one is still connected, as Combine does.
      return {
        inner.end()
        disconnectOuter()
      }
    }
  }
}
