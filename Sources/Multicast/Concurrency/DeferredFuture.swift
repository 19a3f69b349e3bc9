import IndefiniteObservable
import Synchronization

/// One value, made for each subscription by an `async` function or a completion-handler API, and
/// delivered on the subscriber's actor; Combine's `Deferred { Future { ... } }`.
///
/// ```swift
/// // A plain function: no actor, no isolation parameter.
/// func greeting(for name: String) -> DeferredFuture<String> {
///   DeferredFuture {
///     try? await Task.sleep(for: .milliseconds(10))  // a server, say
///     return "Hello, \(name)"
///   }
/// }
///
/// // On the main actor:
/// var shown: [String] = []
/// let loading = greeting(for: "Ada").stream().map { $0 + "!" }.subscribe { shown.append($0) }
/// // a moment later: shown == ["Hello, Ada!"]
/// let names = Emitter<String>()
/// let latest = names.flatMapLatest { greeting(for: $0).stream() }
/// ```
///
/// Nothing runs until a subscription connects: each one starts the work afresh (the `Deferred`
/// part) and receives its one value (the `Future` part), then nothing more; with no completion,
/// the subscription simply has nothing left to deliver. `unsubscribe()` cancels the work.
///
/// **Why it is not a `ValueObservable`.** A stream is used where it is made, and a function that
/// returns one would have to say on which actor its value is delivered: an isolation parameter
/// at every call site, or a stream bound to no actor, whose subscriber the compiler could not
/// check. A deferred future is `Sendable` instead, made anywhere, and bound to an actor only
/// where it is used: ``subscribe(isolation:_:)`` and ``stream(isolation:)`` take the caller's
/// actor, which the compiler passes, and `stream()` is the value as a stream for that actor, for
/// operators and for operators that take streams (`flatMapLatest`). Code on no actor cannot use
/// it, for the reason it cannot subscribe to a `SendableEmitter` with a plain closure: there is no
/// actor to deliver on.
///
/// - Threading: the work runs in a task of its own, off the subscriber's actor (the completion
///   handler runs wherever its API calls it); the value then hops to the subscriber's actor, one
///   thread switch. A completion handler called synchronously, on the subscribing thread while
///   the API's function is still running there, delivers before `subscribe` returns, as
///   Combine's does; one called from any other thread hops, even while that function still
///   runs, so an `async` function that returns at once is never delivered early by a race.
/// - Cancellation: `unsubscribe()` cancels the task (an `async` function sees
///   `Task.isCancelled`, and `withTaskCancellationHandler` can cancel a callback API's work) and
///   closes the delivery: once it returns on the subscriber's actor, the value is never
///   delivered. A completion handler called after that, or called again, is ignored.
/// - Lifetime: the future keeps its function; a subscription keeps its task and the subscriber's
///   closure until it is unsubscribed (also after its value was delivered, as every subscription
///   keeps its subscriber until it ends).
/// - Bad input: a completion handler that is never called delivers nothing; one called twice
///   delivers its first value, as Combine's `Future` does. Neither traps.
public final class DeferredFuture<Value: Sendable>: Sendable {
  /// Starts the work for one subscription: calls `deliver` with the value, at most once counted,
  /// and returns what cancels the work.
  private let start: @Sendable (_ deliver: @escaping @Sendable (Value) -> Void) -> Cancel

  /// What cancels one subscription's work.
  private struct Cancel: Sendable {
    let cancel: @Sendable () -> Void
  }

  /// A future of the value that `operation` returns, which runs for each subscription in a task
  /// of its own, at `priority` (the subscriber's task's, or none, when nil).
  ///
  /// `operation` is cancelled by `unsubscribe()`; what it returns after that is dropped.
  public init(
    priority: TaskPriority? = nil,
    _ operation: @escaping @Sendable () async -> Value
  ) {
    start = { deliver in
      let task = Task(priority: priority) {
        let value = await operation()
        if !Task.isCancelled { deliver(value) }
      }
      return Cancel(cancel: task.cancel)
    }
  }

  /// A future of the value that `attempt` passes to its `promise`: Combine's
  /// `Future { promise in ... }` with `promise(value)` for `promise(.success(value))`.
  ///
  /// ```swift
  /// let location = DeferredFuture<String> { promise in
  ///   geocoder.lookUp(latitude: 51.5, longitude: -0.1) { place in promise(place) }
  /// }
  /// ```
  ///
  /// `attempt` runs for each subscription, synchronously on the subscriber's actor while it
  /// subscribes. The promise may be called from any thread, at once or later; its first call
  /// counts. `unsubscribe()` does not stop the API's work (nothing here can); to stop it, use the
  /// `async` form with `withTaskCancellationHandler`.
  public init(
    _ attempt: @escaping @Sendable (_ promise: @escaping @Sendable (Value) -> Void) -> Void
  ) {
    start = { deliver in
      attempt(deliver)
      return Cancel(cancel: {})
    }
  }

  /// The value, as a stream for the caller's actor: each subscription starts the work, and its
  /// value is delivered on that actor.
  public func stream(isolation: isolated any Actor = #isolation) -> ValueObservable<Value> {
    ValueObservable { observer in
      let gate = ObserverGate(isolation: isolation, observer.next)
      let delivered = Atomic(false)
      // While `start` runs on this thread, the thread is recorded as on `isolation`: a promise
      // called here is delivered at once, before subscribe returns; a value from any other
      // thread (a task, a callback) hops, also while `start` still runs.
      let cancel = SendingIsolation.with(isolation) {
        self.start { value in
          let first = !delivered.exchange(true, ordering: .acquiringAndReleasing)
          if first { _ = gate.sendFromCurrentThread(value) }
        }
      }
      return {
        gate.close()
        cancel.cancel()
      }
    }
  }

  /// Subscribes `next`, on the caller's actor, to the value of a new run of the work.
  ///
  /// - Returns: The subscription; `unsubscribe()` cancels the work. Dropping it does not.
  @discardableResult
  public func subscribe(
    isolation: isolated any Actor = #isolation,
    _ next: @escaping (Value) -> Void
  ) -> Subscription {
    stream(isolation: isolation).subscribe(next)
  }
}
