extension ValueObservable {
  /// Passes on values while `predicate` returns `true`, then disconnects from this stream at the
  /// first value for which it returns `false`; Combine's `prefix(while:)`, RxSwift's
  /// `take(while:)`.
  ///
  /// ```swift
  /// let numbers = ValueObservable<Int> { observer in
  ///   for n in [1, 2, 5, 3] { observer.next(n) }
  ///   return noopDisconnect
  /// }.prefix(while: { $0 < 4 })
  /// // delivers 1, 2
  /// ```
  ///
  /// The first value that fails is not passed on, and `predicate` is not called again: a stream
  /// has no completion to send, so the subscriber simply receives nothing more, and the upstream
  /// subscription ends, as ``prefix(_:)`` ends it: from inside that value's delivery when it
  /// arrives after subscribing has returned, or as soon as the stream's connect returns when it
  /// arrives while the stream is connecting. Unsubscribing afterwards does nothing more;
  /// unsubscribing before disconnects as usual. The upstream is disconnected exactly once.
  ///
  /// `predicate` runs synchronously on the delivering thread, once per value and subscription
  /// until one fails. Each subscription tests its own values, from subscribe on.
  ///
  /// - Threading: like every operator (see ``ValueObservable``). Disconnecting, by a failing
  ///   value or by `unsubscribe()`, happens once, whichever comes first and on whichever thread.
  @inlinable
  public func prefix(while predicate: @escaping (T) -> Bool) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      var isPassing = true
      let upstream = SerialDisconnect()
      let disconnect = self.connectNext { value in
        guard isPassing else { return }
        guard predicate(value) else {
          isPassing = false
          upstream.end()
          return
        }
        next(value)
      }
      // If a value failed during connect, the slot has ended and disconnects at once.
      upstream.replace(with: disconnect)
      return upstream.end
    }
  }
}
