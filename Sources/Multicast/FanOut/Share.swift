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
  /// - Later subscribers receive the values sent after they subscribed; with `replayingLast`,
  ///   the last values of the connection first, oldest first (RxSwift's `share(replay:)`,
  ///   whose default scope is the same: a new connection starts with nothing to replay).
  /// - When the last subscriber unsubscribes, this stream is disconnected, on that thread,
  ///   before `unsubscribe()` returns. The next subscriber connects it again: a new connection,
  ///   whose operators upstream start afresh.
  ///
  /// Call `share()` once and hand out its result: each call makes a shared stream of its own.
  ///
  /// - Parameter replayingLast: How many of the connection's last values a subscriber that joins
  ///   it receives first, before `subscribe` returns: 0 (the default, as `share()` in Combine)
  ///   for new values only; 1 for RxSwift's `share(replay: 1)`. A negative count is taken as 0.
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
  /// - Cost: a value costs what an `Emitter`'s send costs, with no allocation once a replay's
  ///   buffer has grown; the first subscriber's subscribe makes the connection (an emitter and
  ///   this stream's subscription).
  public func share(replayingLast: Int = 0) -> ValueObservable<T> {
    let shared = SharedConnection(upstream: self, replayingLast: replayingLast)
    return ValueObservable { observer in shared.subscribe(observer.next) }
  }
}

/// The state of one `share()`: the number of subscribers and, while there is at least one, the
/// connection they share.
///
/// The lock guards the count and the connection, so that a first subscriber and a last one on
/// two threads agree on who connects and who disconnects. Connecting and disconnecting the
/// upstream, and every delivery, run after it is released.
private final class SharedConnection<T> {
  private let upstream: ValueObservable<T>
  private let replayingLast: Int
  private let state = LockedState(SharedCount<Connection>())

  /// One connection of the upstream: the emitter that fans its values out, and the upstream's
  /// subscription once it has been made.
  private final class Connection {
    let emitter: Emitter<T>
    let upstream = LockedState<Subscription?>(nil)

    init(keepingLast count: Int) {
      emitter = Emitter(keepingLast: count).withoutSubscriberLimit()
    }
  }

  init(upstream: ValueObservable<T>, replayingLast: Int) {
    self.upstream = upstream
    self.replayingLast = replayingLast
  }

  /// Subscribes `next`, connecting the upstream if it is the first subscriber.
  func subscribe(_ next: @escaping (T) -> Void) -> Disconnect {
    let (connection, isFirst) = state.withLock {
      $0.join { Connection(keepingLast: replayingLast) }
    }
    // Subscribed to the emitter before the upstream connects, so that the first subscriber
    // receives what the upstream sends while connecting.
    let downstream = connection.emitter.subscribe(replayingLast: replayingLast > 0, next)
    if isFirst {
      let emitter = connection.emitter
      let subscription = upstream.subscribe { emitter.send($0) }
      connection.upstream.withLock { $0 = subscription }
      // This subscriber is still counted, so the connection cannot have ended meanwhile.
    }
    return {
      downstream.unsubscribe()
      // The last one disconnects the upstream, outside the lock.
      let ended = self.state.withLock { $0.leave() }
      ended?.upstream.withLock { $0.take() }?.unsubscribe()
    }
  }
}

/// The count of a shared stream's subscribers and the connection they share while there is at
/// least one: what `share()` on a stream and on a ``Producer`` each keep under their lock.
struct SharedCount<Connection> {
  /// The subscriptions that have not ended.
  private var subscribers = 0
  /// What they share; nil exactly when `subscribers` is 0.
  private var connection: Connection?

  /// Counts a subscriber in: the connection to join, and whether this subscriber made it (and
  /// must connect the upstream).
  mutating func join(_ make: () -> Connection) -> (Connection, isFirst: Bool) {
    subscribers += 1
    if let connection { return (connection, false) }
    let made = make()
    connection = made
    return (made, true)
  }

  /// Counts a subscriber out: the connection the last one ended, to disconnect after the lock.
  mutating func leave() -> Connection? {
    subscribers -= 1
    guard subscribers == 0 else { return nil }
    defer { connection = nil }
    return connection
  }
}

extension SharedCount: Sendable where Connection: Sendable {}
