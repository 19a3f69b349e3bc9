import IndefiniteObservable

extension ValueObservable {
  /// A stream that delivers this stream's values to all its subscribers and connects to this
  /// stream only when ``ConnectableObservable/connect()`` is called; Combine's
  /// `makeConnectable()`.
  ///
  /// ```swift
  /// let readings = Emitter<Int>()
  /// let connectable = readings.map { $0 * 10 }.makeConnectable()
  /// var first: [Int] = []
  /// var second: [Int] = []
  /// let a = connectable.subscribe { first.append($0) }
  /// let b = connectable.subscribe { second.append($0) }
  /// readings.send(1)  // not connected yet: nobody receives it
  /// let connection = connectable.connect()
  /// readings.send(2)
  /// // first == [20], second == [20]
  /// connection.unsubscribe()
  /// ```
  ///
  /// Use it where every subscriber must be in place before the first value, where `share()`
  /// would let the first subscriber see values that the next ones miss. See
  /// ``ConnectableObservable`` for the contract.
  ///
  /// - Parameter emitter: The emitter that the connection sends this stream's values into and
  ///   that the subscribers subscribe to, with `replayingLast: true`: Combine's and RxSwift's
  ///   `multicast(subject)`. One that keeps values replays them to each new subscriber, across
  ///   connections (RxSwift's `replay(n)` is `makeConnectable(through: Emitter(keepingLast:
  ///   n))`); values sent into it by others reach the subscribers too. Nil, the default, for an
  ///   emitter of the connectable's own that keeps nothing and has no subscriber limit.
  public func makeConnectable(through emitter: Emitter<T>? = nil) -> ConnectableObservable<T> {
    ConnectableObservable(upstream: self, emitter: emitter)
  }
}

/// A stream shared by all its subscribers that connects to its upstream only when told to:
/// ``connect()``, or ``autoconnect()`` on the first subscriber; Combine's
/// `ConnectablePublisher` as `makeConnectable()` makes it.
///
/// Made by `ValueObservable.makeConnectable(through:)`. Subscribing does not connect: a
/// subscriber receives the values the upstream delivers while connected, from the time it
/// subscribed, through an ``Emitter`` (the package's one fan-out, as `share()` uses), in the
/// order they subscribed, with the emitter's re-entrancy and unsubscribe guarantees. It first
/// receives what that emitter keeps: nothing, for the connectable's own emitter.
///
/// - Connecting: ``connect()`` connects the upstream once, on the calling thread, and returns the
///   connection's subscription; `unsubscribe()` on it disconnects the upstream, before it
///   returns, and a later ``connect()`` connects it again, afresh. While connected, a second
///   ``connect()`` connects nothing more and returns a subscription of the same connection
///   (Combine's would connect the upstream twice and deliver every value twice).
/// - ``autoconnect()``: the stream that connects when its first subscriber arrives and
///   disconnects when its last one leaves, Combine's `autoconnect()`. It does not end a
///   connection that ``connect()`` made: the one who called it ends it.
/// - Threading: like every stream, a connectable lives in one isolation (it is not `Sendable`);
///   its subscribers, the upstream's connect and its values are there. A connection's
///   subscription may be ended from any thread, and the upstream is disconnected on that
///   thread; one ended while the upstream is still connecting, on another thread, disconnects
///   it as soon as its connect returns.
/// - Lifetime: the connectable keeps its upstream; a connection keeps the upstream's
///   subscription until it ends, and the upstream's source keeps the subscribers' fan-out. Values
///   are not kept: each is released once delivered.
public final class ConnectableObservable<T>: ValueObservable<T> {
  private let emitter: Emitter<T>
  private let upstream: ValueObservable<T>
  private let state = LockedState(State())

  private struct State {
    /// The live connection; nil when disconnected.
    var connection: Connection?
    /// The subscribers of ``autoconnect()`` that have not left.
    var autoSubscribers = 0
    /// The connection that the first of them made, which the last of them ends.
    var autoConnection: Connection?
  }

  /// One connection of the upstream: its subscription once made, or that it ended first.
  private final class Connection {
    private let slot = LockedState(Slot())

    private struct Slot {
      var upstream: Subscription?
      var isEnded = false
    }

    /// Keeps the upstream's subscription, or ends it at once if the connection has ended.
    func attach(_ subscription: Subscription) {
      let ended = slot.withLock { slot in
        if !slot.isEnded { slot.upstream = subscription }
        return slot.isEnded
      }
      if ended { subscription.unsubscribe() }
    }

    /// Ends the connection: disconnects the upstream, now or once it is attached.
    func end() {
      let upstream = slot.withLock { slot in
        slot.isEnded = true
        return slot.upstream.take()
      }
      upstream?.unsubscribe()
    }
  }

  init(upstream: ValueObservable<T>, emitter: Emitter<T>?) {
    // Its own keeps nothing, and has no subscriber limit, since the user cannot reach it.
    let emitter = emitter ?? Emitter(keepingLast: 0).withoutSubscriberLimit()
    self.emitter = emitter
    self.upstream = upstream
    super.init { observer in
      emitter.subscribe(replayingLast: true, observer.next).unsubscribe
    }
  }

  /// Connects the upstream, unless it is connected, and returns the subscription that ends the
  /// connection.
  ///
  /// The upstream connects on this thread, before this returns; the values it sends while
  /// connecting reach the subscribers already there. Ending the subscription disconnects it
  /// (see the type's contract); the subscription of a connection that has ended does nothing.
  @discardableResult
  public func connect() -> Subscription {
    let (connection, isNew) = state.withLock { state in
      if let connection = state.connection { return (connection, false) }
      let connection = Connection()
      state.connection = connection
      return (connection, true)
    }
    if isNew { attachUpstream(to: connection) }
    return Subscription { self.end(connection) }
  }

  /// The stream that connects this one when its first subscriber arrives and disconnects it
  /// when its last one leaves; Combine's `autoconnect()`.
  ///
  /// ```swift
  /// let clicks = Emitter<Int>()
  /// let shared = clicks.makeConnectable().autoconnect()
  /// var seen: [Int] = []
  /// let watching = shared.subscribe { seen.append($0) }  // connects
  /// clicks.send(1)
  /// watching.unsubscribe()  // disconnects
  /// // seen == [1]
  /// ```
  ///
  /// The first subscriber is subscribed before the upstream connects, so it receives the values
  /// the upstream sends while connecting. When the connectable is already connected by
  /// ``connect()``, the subscribers join that connection and leave it to its owner (once the
  /// owner ends it, they receive nothing until the connectable is connected again). The next
  /// subscriber after the last one left connects again, afresh. Subscribers of the connectable
  /// itself and of this stream share one fan-out.
  public func autoconnect() -> ValueObservable<T> {
    ValueObservable { observer in
      let downstream = self.emitter.subscribe(replayingLast: true, observer.next)
      let connection: Connection? = self.state.withLock { state in
        state.autoSubscribers += 1
        guard state.autoSubscribers == 1, state.connection == nil else { return nil }
        let connection = Connection()
        state.connection = connection
        state.autoConnection = connection
        return connection
      }
      if let connection { self.attachUpstream(to: connection) }
      return {
        downstream.unsubscribe()
        self.autoSubscriberLeft()
      }
    }
  }

  /// Connects the upstream into the fan-out, for `connection`.
  private func attachUpstream(to connection: Connection) {
    let emitter = self.emitter
    connection.attach(upstream.subscribe { emitter.send($0) })
  }

  /// Ends `connection`, and forgets it if it is the live one, so that the next connect makes a
  /// new one.
  private func end(_ connection: Connection) {
    state.withLock { state in
      if state.connection === connection { state.connection = nil }
      if state.autoConnection === connection { state.autoConnection = nil }
    }
    connection.end()
  }

  /// Counts an autoconnect subscriber out; the last one ends the connection the first made.
  private func autoSubscriberLeft() {
    let ended: Connection? = state.withLock { state in
      state.autoSubscribers -= 1
      guard state.autoSubscribers == 0, let connection = state.autoConnection.take() else {
        return nil
      }
      if state.connection === connection { state.connection = nil }
      return connection
    }
    ended?.end()
  }
}
