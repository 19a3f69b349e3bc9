extension ValueObservable {
  /// Runs side effects when a subscription connects, for each value and when it is
  /// unsubscribed, and passes every value on unchanged; Combine's `handleEvents`.
  ///
  /// ```swift
  /// let clicks = Emitter<Int>()
  /// var log: [String] = []
  /// let logging = clicks.handleEvents(
  ///   receiveSubscription: { log.append("subscribed") },
  ///   receiveOutput: { log.append("click \($0)") },
  ///   receiveCancel: { log.append("unsubscribed") }
  /// ).subscribe { _ in }
  /// clicks.send(1)
  /// logging.unsubscribe()
  /// // log == ["subscribed", "click 1", "unsubscribed"]
  /// ```
  ///
  /// - `receiveSubscription` runs on each subscribe, on the subscribing thread, before this
  ///   stream connects (so before any value it sends while connecting). Combine passes the
  ///   upstream's subscription; there is none to pass here.
  /// - `receiveOutput` runs for each value, before the value is passed on.
  /// - `receiveCancel` runs when the subscription ends, on the thread that ends it, before this
  ///   stream is disconnected: by `unsubscribe()`, and also by an operator below that ends its
  ///   upstream on its own, such as ``prefix(_:)`` (where Combine sends no cancel but a
  ///   completion, which a stream without end does not have). It runs once per subscription.
  ///
  /// Combine's `receiveCompletion` and `receiveRequest` have no counterpart: a stream neither
  /// completes nor takes demand. Each closure is kept as long as the stream.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): each closure runs synchronously
  ///   where its event happens.
  @inlinable
  public func handleEvents(
    receiveSubscription: (() -> Void)? = nil,
    receiveOutput: ((T) -> Void)? = nil,
    receiveCancel: (() -> Void)? = nil
  ) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      receiveSubscription?()
      let disconnect: Disconnect
      if let receiveOutput {
        disconnect = self.connectNext { value in
          receiveOutput(value)
          next(value)
        }
      } else {
        disconnect = self.connectNext(next)
      }
      guard let receiveCancel else { return disconnect }
      return {
        receiveCancel()
        disconnect()
      }
    }
  }
}
