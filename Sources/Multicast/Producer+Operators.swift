import IndefiniteObservable

extension Producer {
  /// This producer's values passed through `operators`: the operators of `ValueObservable`, for
  /// code on no actor, delivered on the sending thread as much as on an actor.
  ///
  /// ```swift
  /// final class Monitor: Sendable {  // on no actor
  ///   let levels = SendableEmitter<Int>()
  ///   func watch() -> SendableSubscription {
  ///     levels.through { $0.map { $0 * 10 }.removeDuplicates().scan(0, +) }
  ///       .subscribe(on: .sendingThread) { total in print(total) }
  ///   }
  /// }
  /// ```
  ///
  /// Each subscription calls `operators` once, with a stream of this producer's values, and
  /// subscribes to the stream it returns. That chain is not `Sendable`, yet the threads that
  /// produce values run it: it lives in an ``ObserverGate/serializing(_:)`` gate, which gives
  /// it one value at a time, in the order they came, and connects and disconnects it there
  /// too. The compiler checks the rest: `operators` is `@Sendable`, so the chain can hold only
  /// what it makes and `Sendable` values, and operators that need an actor (`debounce`,
  /// `stream()` of another source) do not compile in it.
  ///
  /// - Parameter operators: Builds the chain from the stream of this producer's values; called
  ///   once per subscription, on the subscribing thread.
  /// - Returns: A producer of the chain's values: `subscribe(on: .sendingThread)` runs the
  ///   subscriber where the chain runs, `subscribe { }` on the caller's actor, and ``share(replayingLast:)``
  ///   shares one chain among subscribers.
  ///
  /// - Threading: a value goes through the chain on the thread that produced it, or, when
  ///   another value is going through it at that moment, on that value's thread, right after.
  ///   A chain never runs on two threads at once.
  /// - Lifetime: ending a subscription disconnects its upstream, then its chain, in the gate:
  ///   at once, or after the value going through it.
  public func through<Output: Sendable>(
    _ operators: @escaping @Sendable (ValueObservable<Value>) -> ValueObservable<Output>
  ) -> Producer<Output> {
    chainProducer(operators) { self.subscribe(on: .sendingThread, $0) }
  }

  /// Shares one subscription to this producer among all the subscribers of the producer
  /// returned: it connects when the first subscriber arrives and disconnects when the last one
  /// leaves, as `ValueObservable.share(replayingLast:)` does, from any thread.
  ///
  /// ```swift
  /// let shared = Timers.every(.seconds(1)).through { $0.scan(0) { count, _ in count + 1 } }.share()
  /// let a = shared.subscribe(on: .sendingThread) { print("a", $0) }
  /// let b = shared.subscribe(on: .sendingThread) { print("b", $0) }  // the same count
  /// ```
  ///
  /// - Parameter replayingLast: How many of the connection's last values a subscriber that
  ///   joins it receives first; 0 (the default) for new values only. A negative count is 0.
  ///
  /// - Threading: any thread may subscribe and unsubscribe, at once. The first subscriber
  ///   connects this producer on its thread, before its `subscribe` returns; the last one
  ///   disconnects it on its thread, before its `unsubscribe()` returns. Each value reaches the
  ///   subscribers through a ``SendableEmitter``: each runs where its subscription says, in the
  ///   order they subscribed.
  /// - Lifetime: the shared producer keeps this one; a connection keeps its emitter and the
  ///   subscribers' closures until they unsubscribe. A new connection starts with nothing to
  ///   replay.
  public func share(replayingLast: Int = 0) -> Producer<Value> {
    let shared = SharedProducer(upstream: self, replayingLast: replayingLast)
    return Producer { gate in shared.subscribe(gate) }
  }
}

extension SendableSource {
  /// This source's values passed through `operators`, for code on no actor: as
  /// ``Producer/through(_:)``, with this source's values (a current value's subscription starts
  /// with its value).
  ///
  /// - Parameter operators: Builds the chain from the stream of this source's values; called
  ///   once per subscription, on the subscribing thread.
  /// - Returns: A producer of the chain's values.
  public func through<Output: Sendable>(
    _ operators: @escaping @Sendable (ValueObservable<Value>) -> ValueObservable<Output>
  ) -> Producer<Output> {
    chainProducer(operators) { self.subscribe(on: .sendingThread, $0) }
  }
}

/// What a chain of operators run by ``Producer/through(_:)`` is given, one at a time.
enum ChainStep<Input: Sendable>: Sendable {
  case connect
  case value(Input)
  case disconnect
}

/// A producer whose each subscription builds a chain of `operators`, gives it to a serializing
/// gate, connects it there, and subscribes it with `subscribe` to the upstream's values, sent on
/// the sending thread; ending the subscription disconnects the upstream, then the chain.
private func chainProducer<Input: Sendable, Output: Sendable>(
  _ operators: @escaping @Sendable (ValueObservable<Input>) -> ValueObservable<Output>,
  upstream subscribe:
    @escaping @Sendable (@escaping @Sendable (Input) -> Void) ->
    SendableSubscription
) -> Producer<Output> {
  Producer { downstream in
    var entry: ((Input) -> Void)?
    var subscription: Subscription?
    let chain = operators(
      ValueObservable { observer in
        entry = observer.next
        return { entry = nil }
      })
    let region = ObserverGate<ChainStep<Input>>.serializing { step in
      switch step {
      case .connect: subscription = chain.subscribe { downstream.sendFromCurrentThread($0) }
      case .value(let value): entry?(value)
      case .disconnect: subscription.take()?.unsubscribe()
      }
    }
    region.send(.connect)
    let upstream = subscribe { region.send(.value($0)) }
    return {
      upstream.unsubscribe()
      region.send(.disconnect)
    }
  }
}

/// The state of one ``Producer/share(replayingLast:)``: the count of subscribers and the
/// connection they share (``SharedCount``, as a stream's `share()` keeps it).
private final class SharedProducer<Value: Sendable>: Sendable {
  private let upstream: Producer<Value>
  private let replayingLast: Int
  private let state = LockedState(SharedCount<Connection>())

  /// One connection of the upstream: the emitter that fans its values out, and the upstream's
  /// subscription once it has been made.
  private final class Connection: Sendable {
    let emitter: SendableEmitter<Value>
    let upstream = LockedState<SendableSubscription?>(nil)

    init(keepingLast count: Int) {
      emitter = SendableEmitter(keepingLast: count).withoutSubscriberLimit()
    }
  }

  init(upstream: Producer<Value>, replayingLast: Int) {
    self.upstream = upstream
    self.replayingLast = replayingLast
  }

  /// Subscribes `gate`, connecting the upstream if it is the first subscriber.
  func subscribe(_ gate: ObserverGate<Value>) -> @Sendable () -> Void {
    let (connection, isFirst) = state.withLock {
      $0.join { Connection(keepingLast: replayingLast) }
    }
    // Subscribed before the upstream connects, so that the first subscriber receives what the
    // upstream sends while connecting. A value sent on the gate's actor reaches it at once.
    let downstream = connection.emitter.subscribe(
      on: .sendingThread, replayingLast: replayingLast > 0
    ) { gate.sendFromCurrentThread($0) }
    if isFirst {
      let emitter = connection.emitter
      let subscription = upstream.subscribe(on: .sendingThread) { emitter.send($0) }
      connection.upstream.withLock { $0 = subscription }
    }
    return {
      downstream.unsubscribe()
      let ended = self.state.withLock { $0.leave() }
      ended?.upstream.withLock { $0.take() }?.unsubscribe()
    }
  }
}
