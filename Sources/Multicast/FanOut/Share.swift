import IndefiniteObservable

extension ValueObservable {
  /// Shares one subscription to this stream among all the subscribers of the stream returned:
  /// it connects when the first subscriber arrives and disconnects when the last one leaves.
  ///
  /// ```swift
  /// var connections = 0
  /// let lines = ValueObservable<String> { observer in
  ///   connections += 1
  ///   observer.next("first line")
  ///   return noopDisconnect
  /// }.share()
  /// var seen: [String] = []
  /// let counting = lines.subscribe { seen.append("counted \($0)") }
  /// let printing = lines.subscribe { seen.append("printed \($0)") }
  /// // connections == 1, seen == ["counted first line"]
  /// ```
  ///
  /// A stream is cold: each subscription runs its connect again, so two subscribers of a pipe's
  /// lines would split the lines between them. The shared stream connects this stream once, for
  /// all its subscribers, and delivers each value to each of them through an `Emitter`, as
  /// Combine's `share()` does through a subject:
  ///
  /// - The first subscriber connects this stream, on its thread, before its `subscribe`
  ///   returns; it receives the values this stream sends synchronously while connecting.
  /// - Later subscribers receive the values sent after they subscribed; nothing is replayed.
  ///   (Prepend or replay a value upstream of `share()` if they need one.)
  /// - When the last subscriber unsubscribes, this stream is disconnected, on that thread,
  ///   before `unsubscribe()` returns. The next subscriber connects it again: a new connection,
  ///   whose operators upstream start afresh.
  ///
  /// Call `share()` once and hand out its result: each call makes a shared stream of its own.
  ///
  /// - Threading: like every stream, a shared stream lives in one isolation (it is not
  ///   `Sendable`): its subscribers, its connect and its disconnect run there. Values reach the
  ///   subscribers synchronously, in the order they subscribed, as an `Emitter`'s subscribers
  ///   receive them, with the same re-entrancy and unsubscribe guarantees: a subscriber may
  ///   subscribe and unsubscribe from its callback, and once `unsubscribe()` returns, no
  ///   delivery to it begins.
  /// - Lifetime: the shared stream keeps this stream alive. While connected, this stream's source
  ///   keeps the connection's emitter and with it the subscribers' closures, until they
  ///   unsubscribe. There is no limit on the number of subscribers.
  /// - Cost: a value costs what an `Emitter`'s send costs, with no allocation; the first
  /// subscriber's subscribe makes the connection (this stream's subscription).
  ///
  /// It is `makeConnectable().autoconnect()`: one implementation of a shared connection.
  public func share() -> ValueObservable<T> {
    makeConnectable().autoconnect()
  }
}
