extension ValueObservable {
  /// Maps every value to a stream with `transform`, and passes on the values of all those
  /// streams, as they arrive; Combine's `flatMap(maxPublishers:_:)`.
  ///
  /// ```swift
  /// let rooms = Emitter<String>()
  /// let messages = ["lobby": Emitter<String>(), "dev": Emitter<String>()]
  /// var heard: [String] = []
  /// let listening = rooms.flatMap { room in messages[room]!.map { "\(room): \($0)" } }
  ///   .subscribe { heard.append($0) }
  /// rooms.send("lobby")
  /// rooms.send("dev")
  /// messages["lobby"]!.send("hi")
  /// messages["dev"]!.send("build is green")
  /// // heard == ["lobby: hi", "dev: build is green"]
  /// ```
  ///
  /// Every stream that `transform` makes stays connected for as long as the subscription: none
  /// completes, so unlike Combine's, the number of connected streams only grows. Where only the
  /// latest matters, ``flatMapLatest(_:)`` disconnects the one before.
  ///
  /// - `maxPublishers`: at most this many streams per subscription (all of them by default).
  ///   Combine asks its upstream for no more values once it has that many; with no completion to
  ///   free a place, this one takes the first `maxPublishers` values and then disconnects from
  ///   this stream, as ``prefix(_:)`` does, keeping the inner streams. Write Combine's
  ///   `.max(n)` as `n` and leave out `.unlimited`. Zero or less connects nothing.
  /// - Order: subscribing connects this stream; each value connects its stream at once, before
  ///   the next value is taken. Unsubscribing disconnects the inner streams first, in the order
  ///   they connected, while this stream is still connected, then this stream, as Combine does.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): this stream and the streams
  ///   `transform` makes must not deliver on two threads at once. Unsubscribing may run on
  ///   another thread: an inner stream that connects while it does is disconnected at once, never
  ///   left connected. `transform` runs synchronously, once per value and subscription.
  /// - Cost: the values of the inner streams pass through with no allocation; connecting one
  ///   allocates what its stream allocates to subscribe, and the list of their disconnects grows
  ///   by doubling.
  @inlinable
  public func flatMap<U>(
    maxPublishers: Int = .max,
    _ transform: @escaping (T) -> ValueObservable<U>
  ) -> ValueObservable<U> {
    ValueObservable<U>.connectingNext { next in
      guard maxPublishers > 0 else { return noopDisconnect }
      let inners = DisconnectList()
      let outer = SerialDisconnect()
      var remaining = maxPublishers
      let disconnect = self.connectNext { value in
        guard remaining > 0 else { return }
        remaining -= 1
        if remaining == 0 { outer.end() }
        inners.append(transform(value).connectNext(next))
      }
      // If the last stream came during connect, the slot has ended and disconnects at once.
      outer.replace(with: disconnect)
      return {
        inners.end()
        outer.end()
      }
    }
  }
}
