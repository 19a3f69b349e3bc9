extension ValueObservable {
  /// Passes on the values of this stream until `other` delivers a value, then disconnects from
  /// both; Combine's `prefix(untilOutputFrom:)`, RxSwift's `take(until:)`.
  ///
  /// ```swift
  /// let moves = Emitter<Int>()
  /// let release = Emitter<Void>()
  /// var dragged: [Int] = []
  /// let dragging = moves.prefix(untilOutputFrom: release).subscribe { dragged.append($0) }
  /// moves.send(1)
  /// moves.send(2)
  /// release.send()
  /// moves.send(3)
  /// // dragged == [1, 2]; moves and release have no subscriber left
  /// ```
  ///
  /// A stream has no completion to send, so when `other` delivers, the subscriber simply
  /// receives nothing more, and both upstream connections end at once, from inside that
  /// delivery of `other`: `other` first, then this stream. Unsubscribing afterwards does nothing
  /// more; unsubscribing before disconnects both as usual, in the same order. Each is
  /// disconnected exactly once. The value of `other` is not passed on, nor is anything this
  /// stream sends after it.
  ///
  /// Subscribing connects `other` first, then this stream, as Combine and RxSwift do. So when
  /// `other` delivers while it connects (a current value, say), nothing is passed on and this
  /// stream is never connected. Each subscription waits for its own value of `other`.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the two streams must not
  ///   deliver on two threads at once. Disconnecting, by `other`'s value or by `unsubscribe()`,
  ///   happens once for each stream, whichever comes first and on whichever thread.
  @inlinable
  public func prefix<U>(untilOutputFrom other: ValueObservable<U>) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      var isPassing = true
      let trigger = SerialDisconnect()
      let upstream = SerialDisconnect()
      let disconnectTrigger = other.connectNext { _ in
        guard isPassing else { return }
        isPassing = false
        trigger.end()
        upstream.end()
      }
      // If `other` delivered during connect, the slot has ended and disconnects at once.
      trigger.replace(with: disconnectTrigger)
      if isPassing {
        let disconnectUpstream = self.connectNext { value in
          if isPassing { next(value) }
        }
        // If `other` delivered during connect, the slot has ended and disconnects at once.
        upstream.replace(with: disconnectUpstream)
      }
      return {
        trigger.end()
        upstream.end()
      }
    }
  }
}
