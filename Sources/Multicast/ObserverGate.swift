import IndefiniteObservable

/// A subscriber's closure that a source may call from any thread, and that runs where the
/// compiler thinks it runs: the one way, in this package, to hand a subscriber to another thread
/// and to stop calling it once its subscription has ended.
///
/// A gate is made in one of two ways, and the type system checks each:
///
/// - ``init(isolation:_:)`` takes any closure, `Sendable` or not, and binds it to the actor that
///   makes the gate (the caller's isolation, which the compiler passes). The closure only ever
///   runs on that actor: at once when ``send(_:isolation:)`` is called from that actor, otherwise
///   after a hop, in the order the values were sent. Code that is not isolated to an actor cannot
///   call it: the compiler says "call to actor-isolated initializer ... in a synchronous
///   nonisolated context".
/// - ``init(_:)`` takes a `@Sendable` closure, which may run anywhere: it runs on the sending
///   thread, before `send` returns. A closure literal that fits both is taken as `@Sendable`
///   (the type checker prefers it): write `ObserverGate(isolation: isolation) { ... }`, as
///   below, to bind one to an actor.
///
/// A source that calls its subscriber from a queue, a task or a system callback makes the gate
/// where it knows the subscriber's actor, calls ``send(_:isolation:)`` for each value, and closes
/// the gate in its disconnect:
///
/// ```swift
/// func clock(isolation: isolated any Actor = #isolation) -> ValueObservable<Int> {
///   ValueObservable { observer in
///     let gate = ObserverGate(isolation: isolation, observer.next)
///     let timer = DispatchSource.makeTimerSource(queue: .global())
///     let ticks = LockedState(0)
///     timer.setEventHandler {
///       gate.send(ticks.withLock { $0 += 1; return $0 })
///     }
///     timer.schedule(deadline: .now(), repeating: .milliseconds(10))
///     timer.activate()
///     return {
///       gate.close()
///       timer.cancel()
///     }
///   }
/// }
/// ```
///
/// - Threading: ``send(_:isolation:)`` and ``close()`` may be called from any thread, at once.
///   The closure is called with no lock held, so it may itself close the gate or unsubscribe. An
///   actor-bound gate calls it one value at a time, in the order sent. A `@Sendable` gate calls
///   it on each sending thread, at once when several threads send at once.
/// - Closing: once ``close()`` returns, no call of the closure begins, and values waiting for
///   their hop are dropped (a call already running on another thread may finish). `close()`
///   releases the closure, and with it whatever it captured, after the internal lock is
///   released, so the deinits of those captures may use the gate or its source.
/// - Hops: a value that hops waits in the gate until its actor runs it; the first one of a batch
///   schedules one task (or, for the main actor, one main-actor task), which delivers the whole
///   batch. A value sent from the gate's own actor while nothing waits is delivered at once, with
///   no allocation.
public final class ObserverGate<Value: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable`: the closure and the queued values live inside the lock. An
  // actor-bound closure, which need not be `Sendable`, is only called on `actor`: by `send` when
  // its caller is statically isolated to `actor`, or by `drain(isolation:)`, which runs isolated
  // to it. A `@Sendable` closure is called anywhere.
  private let state: LockedState<State>
  // Whether the closure is bound to an actor (false: it is `@Sendable`).
  private let isBound: Bool

  private struct State {
    // In a struct field, not a bare generic state: see `LockedState`.
    var next: ((Value) -> Void)?
    // The actor an actor-bound closure runs on; released with the closure when the gate closes,
    // so that a closed gate that something still holds (a pending Observation registration, a
    // source's table) keeps no actor alive.
    var actor: (any Actor)?
    // Values waiting for their hop; slots before `head` were delivered and are nil.
    var pending: [Value?] = []
    var head = 0
    // Whether a delivery on `actor` is under way: it empties `pending` before it ends.
    var draining = false
    // Whether a task that will drain `pending` is on its way.
    var scheduled = false
  }

  /// Creates an open gate to `next`, which will only ever run on the caller's actor.
  ///
  /// - Parameters:
  ///   - isolation: The actor `next` runs on. The compiler passes the caller's; a caller that is
  ///     not isolated to an actor cannot make this gate (use ``init(_:)`` with a `@Sendable`
  ///     closure).
  ///   - next: Called with each value sent, on `isolation`.
  public init(isolation: isolated any Actor = #isolation, _ next: @escaping (Value) -> Void) {
    self.isBound = true
    self.state = LockedState(State(next: next, actor: isolation))
  }

  /// Creates an open gate to `next`, a closure that may run anywhere: each value is delivered on
  /// the thread that sends it, before ``send(_:isolation:)`` returns.
  public init(_ next: @escaping @Sendable (Value) -> Void) {
    self.isBound = false
    self.state = LockedState(State(next: next, actor: nil))
  }

  /// Creates an open gate to a main-actor closure: each value is delivered on the main actor.
  ///
  /// Unlike ``init(isolation:_:)``, this one may be made from any isolation: the closure's type
  /// says where it runs.
  public convenience init(mainActor next: @escaping @MainActor (Value) -> Void) {
    self.init(actor: MainActor.shared) { value in MainActor.assumeIsolated { next(value) } }
  }

  private init(actor: any Actor, _ next: @escaping (Value) -> Void) {
    self.isBound = true
    self.state = LockedState(State(next: next, actor: actor))
  }

  /// Delivers `value` to the closure, unless the gate is closed.
  ///
  /// A `@Sendable` gate calls the closure now, on this thread. An actor-bound gate calls it now
  /// when this call is isolated to the gate's actor and no earlier value waits; otherwise it
  /// queues the value and the closure receives it on its actor, after the values sent before.
  ///
  /// - Parameters:
  ///   - value: The value to deliver.
  ///   - isolation: The caller's isolation, which the compiler passes: it is how the gate knows
  ///     that it may call an actor-bound closure at once.
  /// - Returns: False once the gate is closed (the value is dropped), true otherwise.
  @discardableResult
  public func send(_ value: Value, isolation: isolated (any Actor)? = #isolation) -> Bool {
    deliver(value) { actor in isolation.map { $0 === actor } ?? false }
  }

  /// `send`, for a sender that set its isolation with ``SendingIsolation/with(_:_:)``.
  func deliverFromCurrentSender(_ value: Value) -> Bool {
    deliver(value, isSenderOn: SendingIsolation.isOn)
  }

  /// Delivers `value`; `isSenderOn(actor)` says whether the caller runs statically isolated to
  /// the gate's actor.
  private func deliver(_ value: Value, isSenderOn: (any Actor) -> Bool) -> Bool {
    guard isBound else {
      guard let call = state.withLock({ Call($0.next, value) }) else { return false }
      call.run()
      return true
    }
    let action: Action = state.withLock { state in
      guard state.next != nil, let actor = state.actor else { return .closed }
      if isSenderOn(actor) && !state.draining && state.head == state.pending.count {
        state.draining = true
        return .deliverNow
      }
      state.pending.append(value)
      guard !state.draining && !state.scheduled else { return .none }
      state.scheduled = true
      return .schedule(actor)
    }
    switch action {
    case .closed: return false
    case .none: break
    case .deliverNow:
      // The caller's static isolation is the gate's actor: this runs on it.
      call(value)
      drainQueued()
    case .schedule(let actor):
      if actor === MainActor.shared {
        Task { @MainActor in self.drainScheduled() }
      } else {
        Task { await self.drain(isolation: actor) }
      }
    }
    return true
  }

  /// What `deliver` does once it has released the lock.
  private enum Action {
    case closed, none, deliverNow
    case schedule(any Actor)
  }

  /// Whether ``close()`` has been called.
  public var isClosed: Bool {
    state.withLock { $0.next == nil }
  }

  /// Closes the gate: no call of the closure begins after this returns, and waiting values are
  /// dropped. Idempotent.
  ///
  /// - Returns: True for the call that closed the gate, false when it was already closed.
  @discardableResult
  public func close() -> Bool {
    let released = state.withLock { state in
      defer {
        state.next = nil
        state.actor = nil
        state.pending = []
        state.head = 0
      }
      return (state.next, state.pending, state.actor)
    }
    return released.0 != nil  // the closure, values and actor are released here, after the lock
  }

  /// Runs a scheduled delivery on the gate's actor.
  private func drain(isolation: isolated any Actor) {
    drainScheduled()
  }

  /// Called on the gate's actor by the task that a hop scheduled.
  private func drainScheduled() {
    let drains = state.withLock { state in
      state.scheduled = false
      guard !state.draining else { return false }  // a delivery under way takes the queue
      state.draining = true
      return true
    }
    if drains { drainQueued() }
  }

  /// Delivers queued values, on the gate's actor, until none is left; then ends `draining`.
  private func drainQueued() {
    while true {
      let call: Call? = state.withLock { state in
        guard state.head < state.pending.count, state.next != nil else {
          state.pending.removeAll(keepingCapacity: true)  // only nil slots are left
          state.head = 0
          state.draining = false
          return nil
        }
        let value = state.pending[state.head].take()!
        state.head += 1
        return Call(state.next, value)
      }
      guard let call else { return }
      call.run()
    }
  }

  /// Calls the closure with `value` unless the gate was closed.
  private func call(_ value: Value) {
    state.withLock { Call($0.next, value) }?.run()
  }

  /// A call of the closure, taken out of the lock to be made after it. A struct, because the
  /// closure returned bare (or in a tuple) through the lock's generic result is wrapped in a
  /// reabstraction thunk: an allocation for every value.
  private struct Call {
    let next: (Value) -> Void
    let value: Value

    /// Nil when the gate is closed (`next` is nil).
    init?(_ next: ((Value) -> Void)?, _ value: Value) {
      guard let next else { return nil }
      self.next = next
      self.value = value
    }

    func run() { next(value) }
  }
}
