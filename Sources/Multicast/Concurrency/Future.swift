import IndefiniteObservable
import Synchronization

/// One value, made once by work that starts at once, and kept for every subscriber, early or
/// late; Combine's `Future`.
///
/// ```swift
/// let token = Future<String> { promise in
///   DispatchQueue.global().async { promise("t-42") }  // the work, on another thread
/// }
/// var seen: [String] = []  // main-actor state in top-level code
/// token.subscribe { seen.append($0) }  // on the main actor, once the promise is called
/// // later, another subscriber gets the same value, at once:
/// token.subscribe { seen.append($0) }
/// // seen == ["t-42", "t-42"]
/// ```
///
/// The closure runs once, in the initializer, before it returns, whether anyone subscribes or
/// not; the value it passes to its `promise` is kept, and every subscription receives it, then
/// nothing more: one that starts before the promise is called receives it when it is called,
/// one that starts after receives it as it subscribes. With no completion, a subscription that
/// has received its value simply ends (it releases its subscriber then). For work that starts
/// anew for each subscription, use ``DeferredFuture``, Combine's `Deferred { Future { ... } }`.
///
/// Its subscribe spellings are those of a ``SendableSource``'s, less the options a single value
/// does not need: `subscribe { ... }` runs on the caller's actor, `subscribe(on: queue)` and
/// `subscribe(on: .sendingThread)` take a `@Sendable` closure, and ``stream(isolation:)`` is the
/// value as a stream for the caller's actor, for operators. The value is fanned out by a
/// ``SendableEmitter`` that keeps its last value, each subscription replaying it with a limit of
/// one: the package's one fan-out, with its ordering and unsubscribe guarantees.
///
/// - Threading: `Sendable`; any thread may subscribe, at once, and the promise may be called
///   from any thread. `Value` must be `Sendable` because it crosses from the promise's thread to
///   each subscriber's. Where the value is delivered: as a ``SendableEmitter``'s `send` delivers
///   it, when the promise is called (an actor's subscriber after a hop unless the promise runs
///   on that actor; a `.sendingThread` subscriber on the promise's thread, before the promise
///   returns; a queue's on the queue); as it subscribes, when the value is there already (on the
///   actor or the sending thread before `subscribe` returns; on a queue, after a hop).
/// - Unsubscribing: once `unsubscribe()` returns, the value is not delivered to that
///   subscription, including a value waiting for its hop or on its queue.
/// - Lifetime: the future keeps its value for as long as it lives. A promise not yet called, and
///   a subscription still waiting for its value, keep what fans the value out alive, so a future
///   dropped early still delivers to those that subscribed. A promise that is never called
///   leaves its subscriptions waiting, each holding its subscriber (and the fan-out), until they
///   are unsubscribed, as Combine's do.
/// - Bad input: a promise called twice or more keeps its first value, as Combine's `Future`
///   does; a promise never called delivers nothing. Neither traps.
/// - Failure: none, as every stream here: `promise(value)` stands for Combine's
///   `promise(.success(value))`. A result that may fail is a `Future<Result<T, E>>`.
/// - Name: a file that imports Combine too sees two `Future`s; write `Multicast.Future` for
///   this one.
public final class Future<Value: Sendable>: Sendable {
  /// What keeps the value and delivers it: the last value of an emitter that is sent into once.
  private let emitter = SendableEmitter<Value>().withoutSubscriberLimit()

  /// Runs `attempt` at once, on this thread, before returning, with the promise that fulfils the
  /// future: Combine's `Future { promise in ... }`.
  ///
  /// - Parameter attempt: Starts the work and arranges for `promise` to be called with its
  ///   value, at once or later, from any thread. The first call counts; later ones are ignored.
  public init(_ attempt: (_ promise: @escaping @Sendable (Value) -> Void) -> Void) {
    let emitter = self.emitter
    let isFulfilled = Atomic(false)
    attempt { value in
      let isFirst = !isFulfilled.exchange(true, ordering: .acquiringAndReleasing)
      if isFirst { emitter.send(value) }
    }
  }

  /// The value, as a stream for the caller's actor, to apply operators to: each subscription
  /// receives the value on that actor (at once when it is there, otherwise once the promise is
  /// called), then nothing more.
  ///
  /// The stream is not `Sendable`: it stays with the actor that made it. Code on no actor
  /// subscribes with ``subscribe(on:_:)``.
  ///
  /// - Parameter isolation: The actor subscriptions run on: the caller's, which the compiler
  ///   passes.
  public func stream(isolation: isolated any Actor = #isolation) -> ValueObservable<Value> {
    ValueObservable { observer in
      self.subscribe(isolation: isolation, observer.next).unsubscribe
    }
  }

  /// Subscribes `next` to the value, on the caller's actor: before this returns when the value
  /// is there, otherwise when the promise is called (before the promise returns when it runs on
  /// that actor, after a hop otherwise).
  ///
  /// - Parameters:
  ///   - isolation: The actor `next` runs on: the caller's, which the compiler passes. Code on no
  ///     actor cannot call this; it uses ``subscribe(on:_:)``.
  ///   - next: Called once, with the value, on `isolation`.
  /// - Returns: The subscription, which any thread may end. Once the value has been delivered,
  ///   the future lets go of `next`, and unsubscribing does nothing more. Dropping it does not
  ///   unsubscribe.
  @discardableResult
  public func subscribe(
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Value) -> Void
  ) -> SendableSubscription {
    let emitter = self.emitter
    return emitter.subscribe(replayingLast: true, limit: 1, isolation: isolation) { value in
      // The subscriber keeps the emitter until it has been called, so that a future dropped
      // before its promise is called still delivers its value.
      withExtendedLifetime(emitter) { next(value) }
    }
  }

  /// Subscribes `next` to the value, on `target`: a `DispatchQueue`, or `.sendingThread` (on the
  /// subscribing thread before this returns when the value is there, otherwise on the thread
  /// that calls the promise, before it returns).
  ///
  /// - Parameters:
  ///   - target: Where `next` runs: a `DispatchQueue` or `.sendingThread`.
  ///   - next: Called once, with the value, on `target`.
  /// - Returns: The subscription, which any thread may end. Once the value has been delivered
  ///   (on a queue, once the queue has run it), the future lets go of `next`, and unsubscribing
  ///   does nothing more (a value waiting on the queue is dropped by it). Dropping it does not
  ///   unsubscribe.
  @discardableResult
  public func subscribe(
    on target: some DeliveryTarget,
    _ next: @escaping @Sendable (Value) -> Void
  ) -> SendableSubscription {
    let emitter = self.emitter
    return emitter.subscribe(on: target, replayingLast: true, limit: 1) { value in
      withExtendedLifetime(emitter) { next(value) }
    }
  }
}
