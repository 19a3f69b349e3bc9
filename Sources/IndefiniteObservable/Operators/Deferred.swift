extension ValueObservable {
  /// A stream that calls `makeStream` each time it is subscribed to, and passes on the values of
  /// the stream that call returns; Combine's `Deferred`, RxSwift's `Observable.deferred`.
  ///
  /// ```swift
  /// var attempts = 0
  /// let attempt = ValueObservable.deferred { () -> ValueObservable<String> in
  ///   attempts += 1
  ///   return Just("attempt \(attempts)")
  /// }
  /// // attempts == 0: nothing runs until a subscription connects
  /// var seen: [String] = []
  /// attempt.subscribe { seen.append($0) }
  /// attempt.subscribe { seen.append($0) }
  /// // seen == ["attempt 1", "attempt 2"]
  /// ```
  ///
  /// Use it to make the stream when someone subscribes rather than when the chain is written:
  /// to read state as it is then, to start per-subscription work, or to choose between streams.
  ///
  /// - Subscribing: each subscription calls `makeStream` once, synchronously, on the
  ///   subscribing thread, inside `subscribe`, then connects the stream it returned; the values
  ///   that stream sends while connecting are passed on before `subscribe` returns. Nothing is
  ///   called when the deferred stream is made. Each subscription has its own stream: two
  ///   subscriptions call `makeStream` twice, even if it returns the same stream both times
  ///   (which is then connected twice).
  /// - Unsubscribing disconnects the stream that this subscription's call returned, once.
  /// - Lifetime: the deferred stream keeps `makeStream`; a subscription keeps what the
  ///   connection of its stream keeps, as a subscription of that stream would.
  /// - Bad input: there is none to refuse. RxSwift's factory may throw, and its error ends the
  ///   stream; a stream here has no error channel, so a `makeStream` that cannot make a stream
  ///   returns one that delivers nothing, or a `Just` of a value that says what went wrong.
  ///   A `makeStream` that subscribes to the deferred stream itself recurses until the stack
  ///   overflows, as it would in Combine.
  /// - Threading: like every operator (see ``ValueObservable``). `makeStream` runs where the
  ///   subscription is made.
  ///
  /// - Parameter makeStream: Makes the stream for one subscription.
  @inlinable
  public static func deferred(
    _ makeStream: @escaping () -> ValueObservable<T>
  ) -> ValueObservable<T> {
    ValueObservable<T>.connectingNext { next in
      makeStream().connectNext(next)
    }
  }
}
