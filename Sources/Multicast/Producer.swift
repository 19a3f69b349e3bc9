import IndefiniteObservable

/// A stream that any code may subscribe to, written once for both places its subscriber can run:
/// on the subscriber's actor, or on the thread that produces each value.
///
/// A producer is a recipe: `connect` runs once per subscription, with the subscriber's
/// ``ObserverGate``, and returns what ends that subscription. It registers the gate with a source
/// of events (a timer, a descriptor, a system callback) and sends each event into it, from any
/// thread; the gate takes each value to where its subscriber runs. The producers of module
/// `Producers` (`Timers`, `Signals`, `FileWatch`, `Notifications`) are written this way, and so
/// can yours:
///
/// ```swift
/// let heartbeat = Producer<Int> { gate in
///   let timer = DispatchSource.makeTimerSource(queue: .global())
///   let beats = Atomic(0)
///   timer.setEventHandler { gate.send(beats.add(1, ordering: .relaxed).newValue) }
///   timer.schedule(deadline: .now(), repeating: .milliseconds(10))
///   timer.activate()
///   return { timer.cancel() }
/// }
/// heartbeat.subscribe { beat in print(beat) }  // on the caller's actor
/// heartbeat.subscribe(on: .sendingThread) { beat in print(beat) }  // on the timer's queue
/// heartbeat.stream().map { $0 * 2 }.subscribe { print($0) }  // operators, on the caller's actor
/// ```
///
/// - Threading: a producer is `Sendable`: any thread may subscribe to it, at once. `connect`
///   may run on several threads at once, one call per subscription, and must be safe to. Where
///   `connect` runs: on the thread that subscribes, inside `subscribe` (or inside the
///   subscription of ``stream(isolation:)``'s stream).
/// - Lifetime: each subscription lives until it is ended; dropping its subscription does not
///   end it. Ending it closes its gate first (no call of the subscriber begins after that), then
///   calls what `connect` returned, once, with no lock of the package held. `connect` may use the
///   gate's ``ObserverGate/actor`` to run its work on the subscriber's actor.
public struct Producer<Value: Sendable>: Sendable {
  @usableFromInline let connect: @Sendable (ObserverGate<Value>) -> @Sendable () -> Void

  /// Creates a producer from `connect`, which is not called here, only on each subscription.
  ///
  /// - Parameter connect: Registers `gate` with the source of events and returns the closure
  ///   that unregisters it. The gate is closed before that closure runs.
  public init(
    _ connect: @escaping @Sendable (_ gate: ObserverGate<Value>) -> @Sendable () -> Void
  ) {
    self.connect = connect
  }

  /// The values, as a stream for the caller's actor, to apply operators to: each subscription
  /// of it connects anew, and its subscriber runs on that actor (before `send` returns when the
  /// value is sent from that actor, after a hop otherwise).
  ///
  /// The stream is not `Sendable`: it stays with the actor that made it. Code on no actor cannot
  /// call this; it subscribes with ``subscribe(on:_:)``.
  ///
  /// - Parameter isolation: The actor subscriptions run on: the caller's, which the compiler
  ///   passes.
  public func stream(isolation: isolated any Actor = #isolation) -> ValueObservable<Value> {
    ValueObservable { observer in
      self.start(ObserverGate(isolation: isolation, observer.next))
    }
  }

  /// Subscribes `next` to run on the caller's actor: before `send` returns when a value is sent
  /// from that actor, otherwise after a hop, in the order sent.
  ///
  /// - Parameters:
  ///   - isolation: The actor `next` runs on: the caller's, which the compiler passes. Code on no
  ///     actor cannot call this; it uses ``subscribe(on:_:)``.
  ///   - next: Called with each value, on `isolation`.
  /// - Returns: The subscription, which any thread may end (`next` still runs only on
  ///   `isolation`); dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Value) -> Void
  ) -> SendableSubscription {
    SendableSubscription(start(ObserverGate(isolation: isolation, next)))
  }

  /// Subscribes `next` to run on the thread that produces each value, before the producer's
  /// `send` returns, from any code, on an actor or not.
  ///
  /// - Parameters:
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each value, on the producing thread; on several threads at once if
  ///     values are produced on several at once (a notification posted from two threads).
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Value) -> Void
  ) -> SendableSubscription {
    SendableSubscription(start(ObserverGate(next)))
  }

  /// Connects `gate` and returns the disconnect that closes it, then releases the connection.
  func start(_ gate: ObserverGate<Value>) -> @Sendable () -> Void {
    let release = connect(gate)
    return {
      gate.close()
      release()
    }
  }
}
