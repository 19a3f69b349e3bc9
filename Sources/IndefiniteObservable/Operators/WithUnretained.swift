extension ValueObservable {
  /// Passes on each value paired with `object`, which the stream holds weakly, for as long as
  /// `object` exists; RxSwift's `withUnretained(_:)` (Combine has no such operator).
  ///
  /// ```swift
  /// final class Screen {
  ///   var titles: [String] = []
  /// }
  /// let titles = Emitter<String>()
  /// var screen: Screen? = Screen()
  /// let showing = titles.withUnretained(screen!).subscribe { screen, title in
  ///   screen.titles.append(title)
  /// }
  /// titles.send("Inbox")
  /// // screen?.titles == ["Inbox"]
  /// screen = nil
  /// titles.send("Drafts")
  /// // the screen is gone: nothing passed on, and titles has no subscriber left
  /// ```
  ///
  /// The subscriber gets a strong reference to `object` for the length of each call, without
  /// writing `[weak self]` and a `guard` itself; nothing in the stream keeps `object` alive.
  ///
  /// - Lifetime: `object` is held **weakly**, by the stream and by each subscription. Once it is
  ///   deallocated, the next value is dropped and ends the subscription, as RxSwift's completes:
  ///   this stream is disconnected from inside that value's delivery, as ``prefix(_:)`` ends it,
  ///   and the subscriber receives nothing more. A stream that never delivers again stays
  ///   connected until it is unsubscribed. Subscribing when `object` is already gone connects
  ///   nothing. Unsubscribing afterwards does nothing more; the upstream is disconnected exactly
  ///   once.
  /// - Threading: like every operator (see ``ValueObservable``). Disconnecting, by a value that
  ///   finds `object` gone or by `unsubscribe()`, happens once, whichever comes first and on
  ///   whichever thread. `object` is passed on where the value is delivered: use it only where
  ///   it may be used.
  @inlinable
  public func withUnretained<Object: AnyObject>(
    _ object: Object
  ) -> ValueObservable<(Object, T)> {
    ValueObservable<(Object, T)>.connectingNext { [weak object] next in
      guard object != nil else { return noopDisconnect }
      let upstream = SerialDisconnect()
      let disconnect = self.connectNext { [weak object] value in
        guard let object else {
          upstream.end()
          return
        }
        next((object, value))
      }
      // If the object went away while connecting, the slot has ended and disconnects at once.
      upstream.replace(with: disconnect)
      return upstream.end
    }
  }
}
