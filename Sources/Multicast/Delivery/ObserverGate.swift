import Dispatch
import IndefiniteObservable
import Synchronization

/// A subscriber's closure that a source may call from any thread, and that runs where the
/// compiler thinks it runs: the one way, in this package, to hand a subscriber to another thread
/// and to stop calling it once its subscription has ended.
///
/// A gate is made in one of two ways, and the type system checks each:
///
/// - ``init(isolation:buffering:_:)`` takes any closure, `Sendable` or not, and binds it to the
///   actor that makes the gate (the caller's isolation, which the compiler passes). The closure
///   only ever runs on that actor: before ``send(_:isolation:)`` returns when it is called from
///   that actor, otherwise after a hop, in the order the values were sent. Code that is not isolated to an actor cannot
///   call it: the compiler says "call to actor-isolated initializer ... in a synchronous
///   nonisolated context".
/// - ``init(_:)`` takes a `@Sendable` closure, which may run anywhere: it runs on the sending
///   thread, before `send` returns. A closure literal that fits both is taken as `@Sendable`
///   (the type checker prefers it): write `ObserverGate(isolation: isolation) { ... }`, as
///   below, to bind one to an actor.
/// - ``serializing(_:)`` takes a closure that is not `Sendable` but is *sent*: the caller
///   gives it away, with everything it captures, and the compiler checks that nothing else
///   refers to them. It runs on the sending threads, one call at a time: a send that finds a
///   call under way leaves its value to that call's thread, which delivers it next. So code on
///   no actor can keep state (an operator chain, a counter) in a closure that any thread feeds.
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
/// - Hops and turns: a value that hops waits in the gate until its actor runs it. The first one
///   that waits schedules a *turn* on the actor (a block of the main queue for the main actor,
///   which runs the main actor's jobs, see ``MainQueue``; a detached task for any other), which
///   delivers the values that waited when it began, at most 256 of them, and then lets the
///   actor go: values sent during a turn wait for the next one, which the turn schedules as it
///   ends. So a thread that sends faster than the subscriber takes values holds the actor for
///   one turn at a time, and other work on that actor (a `Task.sleep` ending, a `for await`
///   loop's cancellation) runs between turns. A turn is the gate's, not the sender's: it
///   carries none of the sending task's task-local values, nor its priority. A value sent from
///   the gate's own actor is delivered before `send` returns, after the values that waited
///   before it, in the same call; with nothing waiting, with no allocation.
/// - Memory: a subscriber that cannot keep up lets values wait without bound, unless the gate
///   was made with a ``GateBuffering`` limit, which then drops the newest or the oldest.
public final class ObserverGate<Value: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable` (a hand-proved claim of Multicast): the closure and the queued values
  // live inside the lock. An actor-bound closure, which need not be `Sendable`, is only called
  // on `actor`: by `send` when its caller is isolated to `actor` (statically, as
  // `SendingIsolation` records, or on the main queue for the main actor), or by a turn, which
  // runs isolated to it. A `@Sendable` closure is called anywhere (a queue's, on its queue).
  // Checked in debug builds: an inline delivery asserts that its caller runs on the actor
  // (`assertIsolated`), which IsolationAssertionTests.aGateDeliveringInlineOffItsActorStops sees
  // fire in a child process; a turn runs isolated to the actor by its type, or on the main queue
  // under `MainActor.preconditionIsolated()`.
  //
  // The path of a value (send, deliver, a turn, a call) is `@inlinable`, so that a source in
  // another module calls a gate specialized for its value type: unspecialized, each call looked
  // up the gate's generic metadata (its state, a call, the closure's type) at run time, 19
  // look-ups for each line that `follow` printed through two gates
  // (`Benchmarks/follow-vs-tail --counts`).
  @usableFromInline let state: LockedState<State>
  // Whether the closure is bound to an actor (false: it is `@Sendable`, or serialized).
  @usableFromInline let isBound: Bool
  // The identity of the actor of a bound closure (`SendingIsolation.identity(of:)`), kept out of
  // the lock so that a send decides whether it runs there with no lock and no retain: the actor
  // never changes while the gate is open (`State.actor` only goes nil when it closes, and a
  // closed gate delivers nothing). Nil for a closure bound to no actor.
  @usableFromInline let actorIdentity: UnsafeMutableRawPointer?
  // Whether the closure is bound to the main actor, which a send also finds on the main queue.
  @usableFromInline let isMainActor: Bool
  // Whether the closure was sent to the gate (`serializing(_:)`): called one at a time.
  @usableFromInline let isSerial: Bool
  // The queue a `@Sendable` closure runs on (`init(queue:_:)`); nil: on the sending thread.
  @usableFromInline let queue: DispatchQueue?
  // A serialized closure's debug check: whether a call of it is under way.
  #if DEBUG
    private let inside = Atomic(false)
  #endif
  // Set by `close`, after the lock: what `isClosed` reads, with no lock (a subscriber that
  // delivers a batch asks it before each value: 3 locks a line of `follow`).
  private let closed = Atomic(false)
  // Whether a delivery made on the spot (`Action.deliverNow`) is under way up the actor's stack:
  // 0, none; 1, one is; 2, one is, and a send from its call queued values (and set `draining`),
  // which it delivers when the call returns. Read and written only by a send isolated to the
  // gate's actor (checked in debug builds by the `assertIsolated` of a delivery on the spot), so
  // never by two threads at once: relaxed. A delivery on the spot leaves `State.draining` false,
  // so that it ends with no second lock when its call sent nothing to the gate; a send from
  // another thread meanwhile schedules a turn, which runs after the call, on the actor.
  @usableFromInline let spotDelivery = Atomic<UInt8>(0)

  /// The most values one scheduled turn delivers before it lets the actor go.
  @inlinable static var valuesPerTurn: Int { 256 }

  @usableFromInline struct State {
    // In a struct field, not a bare generic state: see `LockedState`.
    @usableFromInline var next: ((Value) -> Void)?
    // The actor an actor-bound closure runs on; released with the closure when the gate closes,
    // so that a closed gate that something still holds (a pending Observation registration, a
    // source's table) keeps no actor alive.
    @usableFromInline var actor: (any Actor)?
    // Values waiting for their hop, oldest first.
    @usableFromInline var pending = PendingValues<Value>()
    // How many values may wait, and which go when that many do.
    @usableFromInline var buffering: GateBuffering
    // Whether a delivery on `actor` is under way (a turn, or a send from the actor).
    @usableFromInline var draining = false
    // How many more values the delivery under way takes before it lets the actor go: a turn
    // starts with those that waited when it began; a send from the actor extends it to its own.
    @usableFromInline var budget = 0
    // Whether a task that will run a turn is on its way.
    @usableFromInline var scheduled = false

    init(next: ((Value) -> Void)?, actor: (any Actor)?, buffering: GateBuffering) {
      self.next = next
      self.actor = actor
      self.buffering = buffering
    }
  }

  /// Creates an open gate to `next`, which will only ever run on the caller's actor.
  ///
  /// - Parameters:
  ///   - isolation: The actor `next` runs on. The compiler passes the caller's; a caller that is
  ///     not isolated to an actor cannot make this gate (use ``init(_:)`` with a `@Sendable`
  ///     closure).
  ///   - buffering: How many values may wait for their hop, and which are dropped beyond that;
  ///     ``GateBuffering/unbounded`` (keep them all) by default.
  ///   - next: Called with each value sent, on `isolation`.
  public convenience init(
    isolation: isolated any Actor = #isolation,
    buffering: GateBuffering = .unbounded,
    _ next: @escaping (Value) -> Void
  ) {
    self.init(actor: isolation, buffering: buffering, next)
  }

  /// Creates an open gate to `next`, a closure that may run anywhere: each value is delivered on
  /// the thread that sends it, before ``send(_:isolation:)`` returns.
  public convenience init(_ next: @escaping @Sendable (Value) -> Void) {
    self.init(actor: nil, next)
  }

  /// Creates an open gate to `next`, a closure that runs on `queue`: each send hands the value
  /// to `queue` (`async`) and returns; there, `next` is called with it unless the gate has
  /// closed meanwhile. The package's one delivery to a queue: `receive(on: queue)` and a
  /// multicast source's `subscribe(on: queue)` both make one. Values sent from one thread
  /// reach a serial queue in the order sent.
  convenience init(queue: DispatchQueue, _ next: @escaping @Sendable (Value) -> Void) {
    self.init(actor: nil, queue: queue, next)
  }

  /// Creates an open gate to `next`, a closure given away to the gate, that the sending threads
  /// call one at a time.
  ///
  /// `next` need not be `Sendable`: `sending` makes the caller give it away, and the compiler
  /// refuses a closure that captures state the caller still reaches ("passing closure as a
  /// 'sending' parameter risks causing data races"). Any code may make this gate, including
  /// code on no actor, and any thread may send to it:
  ///
  /// - A send that finds no call under way calls `next` on its thread, before it returns.
  /// - A send that finds one under way (on another thread, or from `next` itself) queues its
  ///   value and returns; the thread of the call under way delivers the queued values, in the
  ///   order queued, before its send returns. No call of `next` overlaps another, and each
  ///   happens after the one before it (the gate's lock orders them), so `next` may keep
  ///   state that is not `Sendable`.
  /// - Closing drops the queued values; a call under way finishes.
  ///
  /// - Threading: a claim the compiler cannot check (that calls never overlap) is checked in
  ///   debug builds: an overlapping call stops the program
  ///   (IsolationAssertionTests.aSerializedGateCalledTwiceAtOnceStops).
  public static func serializing(_ next: sending @escaping (Value) -> Void) -> ObserverGate {
    ObserverGate(actor: nil, serial: true, next)
  }

  /// Creates an open gate to a main-actor closure: each value is delivered on the main actor.
  ///
  /// Unlike ``init(isolation:buffering:_:)``, this one may be made from any isolation: the
  /// closure's type says where it runs.
  public convenience init(mainActor next: @escaping @MainActor (Value) -> Void) {
    self.init(actor: MainActor.shared) { value in MainActor.assumeIsolated { next(value) } }
  }

  /// The initializer that the others call: a gate bound to `actor`, or, when it is nil, one
  /// whose closure runs on the sending thread, on `queue`, or, when `serial`, on the sending
  /// threads one call at a time.
  private init(
    actor: (any Actor)?,
    serial: Bool = false,
    queue: DispatchQueue? = nil,
    buffering: GateBuffering = .unbounded,
    _ next: @escaping (Value) -> Void
  ) {
    self.isBound = actor != nil
    self.actorIdentity = actor.map(SendingIsolation.identity)
    // Not `actor === MainActor.shared`: reading `MainActor.shared` is a call, a retain and a
    // release, which a gate bound to no actor need not pay.
    self.isMainActor = actor.map { $0 === MainActor.shared } ?? false
    self.isSerial = serial
    self.queue = queue
    self.state = LockedState(State(next: next, actor: actor, buffering: buffering))
  }

  /// The actor the closure runs on: nil for a gate made with ``init(_:)``, and once the gate is
  /// closed. A producer reads it to run its own work there (a timer firing on the subscriber's
  /// actor has no hop to make).
  public var actor: (any Actor)? {
    state.withLock { $0.actor }
  }

  /// Delivers `value` to the closure, unless the gate is closed.
  ///
  /// A `@Sendable` gate calls the closure now, on this thread. An actor-bound gate calls it
  /// before this returns when this call is isolated to the gate's actor, after the values that
  /// waited; otherwise it queues the value and the closure receives it on its actor, in a turn,
  /// after the values sent before.
  ///
  /// - Parameters:
  ///   - value: The value to deliver.
  ///   - isolation: The caller's isolation, which the compiler passes: it is how the gate knows
  ///     that it may call an actor-bound closure at once.
  /// - Returns: False once the gate is closed (the value is dropped), true otherwise (also when
  ///   a ``GateBuffering`` limit dropped a value).
  @discardableResult @inlinable
  public func send(_ value: Value, isolation: isolated (any Actor)? = #isolation) -> Bool {
    deliver(value, sender: isolation.map(SendingIsolation.identity), isRecorded: false)
  }

  /// Delivers `value` from code whose isolation the compiler does not know: a callback of the
  /// system on the thread that read an event, a `nonisolated` function. As
  /// ``send(_:isolation:)``, except that an actor-bound gate calls its closure before this
  /// returns also when the package knows that this thread runs the gate's actor: the main actor
  /// on the main thread or in a block of the main queue, or an actor recorded by a send or a
  /// turn up the stack (Guarantees.md, "When a value hops", rules 2 and 3). Otherwise the value
  /// hops, as with `send`.
  ///
  /// It is how a producer reads on the main thread and reaches a main-actor subscriber with no
  /// hop, under `MainLoop.run()` (module `Producers`) or when a notification is posted there;
  /// `send(_:isolation:)` from such a callback (isolation nil) always hops, as
  /// `receive(on: MainActor.shared)` must.
  ///
  /// - Returns: False once the gate is closed (the value is dropped), true otherwise.
  @discardableResult @inlinable
  public func sendFromCurrentThread(_ value: Value) -> Bool {
    deliver(value, sender: SendingIsolation.recorded, isRecorded: true)
  }

  /// Delivers `value` from a caller isolated to the actor whose identity is `sender`
  /// (`SendingIsolation.identity(of:)`), or to none (nil); `isRecorded` says that `sender` is
  /// this thread's record (``sendFromCurrentThread(_:)``), which also counts the main actor when
  /// this thread runs the main queue.
  ///
  /// A value delivered on the spot takes one lock, to decide and take the closure; a second one,
  /// after the call, only when the call sent values to the gate, to deliver them.
  @inlinable
  func deliver(_ value: Value, sender: UnsafeMutableRawPointer?, isRecorded: Bool) -> Bool {
    guard isBound else {
      if isSerial { return deliverSerially(value) }
      if let queue { return deliver(value, on: queue) }
      guard let next = state.withLock({ Next($0.next) }) else { return false }
      next.call(value)
      return true
    }
    // Whether the caller runs on the gate's actor: decided before the lock (the identity and
    // `isMainActor` never change while the gate is open).
    let isSenderOn =
      sender == actorIdentity || (isRecorded && isMainActor && MainQueue.isCurrent)
    // Whether this send comes from the call of a delivery on the spot (read on the actor only).
    let fromTheCall = isSenderOn && spotDelivery.load(ordering: .relaxed) != 0
    var dropped: Value?
    // The actor, for the debug check of a delivery made on the spot.
    #if DEBUG
      var onTheSpot: (any Actor)?
    #endif
    let action: Action = state.withLock { state in
      guard state.next != nil else { return .closed }
      if isSenderOn {
        #if DEBUG
          onTheSpot = state.actor
        #endif
        // On the actor: delivered in this call, after what waits (a send from the closure
        // itself, while a delivery is under way, is taken by that delivery when the call ends).
        if !fromTheCall && !state.draining && state.pending.isEmpty, let next = Next(state.next) {
          return .deliverNow(next)  // `draining` stays false: `spotDelivery` says it is under way
        }
        state.pending.append(value)
        state.budget = state.pending.count
        guard !state.draining else { return .none }
        state.draining = true
        return fromTheCall ? .drainAfterCall : .drainNow
      }
      guard let actor = state.actor else { return .closed }
      if state.pending.count >= state.buffering.limit {
        guard state.buffering.dropsOldest else {
          dropped = value
          return .none
        }
        dropped = state.pending.popFirst()
        if state.budget > 0 { state.budget -= 1 }
      }
      state.pending.append(value)
      guard !state.draining && !state.scheduled else { return .none }
      state.scheduled = true
      return .schedule(actor)
    }
    withExtendedLifetime(dropped) {}  // a dropped value is released here, after the lock
    switch action {
    case .closed: return false
    case .none: break
    case .deliverNow(let next):
      // The caller runs on the gate's actor: checked in debug builds, where a wrong decision
      // (`isSenderOn`) stops the program before a closure of the actor runs off it
      // (IsolationAssertionTests.aGateDeliveringInlineOffItsActorStops).
      #if DEBUG
        onTheSpot?.assertIsolated(Self.offTheActor)
      #endif
      spotDelivery.store(1, ordering: .relaxed)
      recording(sender: sender, isRecorded: isRecorded) { next.call(value) }
      // The values that the call sent, and those that other threads sent after them, wait:
      // delivered now, as a turn would (a send from their calls finds `draining` set).
      let queued = spotDelivery.load(ordering: .relaxed) == 2
      spotDelivery.store(0, ordering: .relaxed)
      if queued { recording(sender: sender, isRecorded: isRecorded) { drainQueued() } }
    case .drainAfterCall:
      spotDelivery.store(2, ordering: .relaxed)
    case .drainNow:
      #if DEBUG
        onTheSpot?.assertIsolated(Self.offTheActor)
      #endif
      recording(sender: sender, isRecorded: isRecorded) { drainQueued() }
    case .schedule(let actor):
      schedule(on: actor)
    }
    return true
  }

  /// Runs `body`, a delivery on the spot, with the gate's actor recorded as this thread's
  /// sending isolation, for the sends that the closure makes. A record that says so already is
  /// not written again; nor is an empty one when the sender found the main actor on the main
  /// queue, which a send that the closure makes finds the same way.
  @inlinable
  func recording(sender: UnsafeMutableRawPointer?, isRecorded: Bool, _ body: () -> Void) {
    guard let actor = actorIdentity else { return body() }  // not reached: the gate is bound
    guard isRecorded else {
      // `sender` is the caller's static isolation, not the record: read it.
      return SendingIsolation.recording(actor, over: SendingIsolation.recorded, body)
    }
    guard sender != nil else { return body() }  // the main actor, on the main queue
    SendingIsolation.recording(actor, over: sender, body)
  }

  /// Delivers `value` to a serialized closure: now, and then what other threads queued
  /// meanwhile; or queues it for the call under way.
  @usableFromInline
  func deliverSerially(_ value: Value) -> Bool {
    var isOpen = true
    let first: Next? = state.withLock { state in
      guard state.next != nil else {
        isOpen = false
        return nil
      }
      guard !state.draining else {
        state.pending.append(value)
        return nil
      }
      state.draining = true
      return Next(state.next)
    }
    guard let first else { return isOpen }
    runAlone(first, value)
    // Then the values that other threads queued meanwhile, one at a time.
    while let (closure, value) = state.withLock({ state -> (Next, Value)? in
      guard let closure = Next(state.next), let value = state.pending.popFirst() else {
        state.draining = false
        return nil
      }
      return (closure, value)
    }) {
      runAlone(closure, value)
    }
    return isOpen
  }

  /// Hands `value` to the queue of a gate made with ``init(queue:_:)``, where the closure is
  /// called with it unless the gate has closed by then.
  @inlinable
  func deliver(_ value: Value, on queue: DispatchQueue) -> Bool {
    guard !isClosed else { return false }
    queue.async { self.call(value) }
    return true
  }

  /// Makes a call of a serialized closure; in debug builds, stops the program if another call
  /// is under way.
  func runAlone(_ next: Next, _ value: Value) {
    #if DEBUG
      precondition(!inside.exchange(true, ordering: .acquiring), Self.overlapping)
      defer { inside.store(false, ordering: .releasing) }
    #endif
    next.call(value)
  }

  /// What the debug check of a serialized closure says when two calls overlap.
  static var overlapping: String {
    "ObserverGate: a serialized closure was called while another call of it was under way"
  }

  /// What the debug check of an inline delivery says when the caller is not on the actor.
  @usableFromInline static var offTheActor: String {
    "ObserverGate: a value would be delivered inline on an actor that is not running this code"
  }

  /// What `deliver` does once it has released the lock.
  @usableFromInline enum Action {
    case closed, none
    // The closure to call now with the value, on the gate's actor.
    case deliverNow(Next)
    case drainNow
    // The delivery on the spot up the stack delivers the queued values when its call returns.
    case drainAfterCall
    case schedule(any Actor)
  }

  /// Starts a task that runs a turn on `actor`.
  @inlinable
  func schedule(on actor: any Actor) {
    if actor === MainActor.shared {
      // The main queue runs the main actor's jobs (`MainQueue`): a block on it is a turn on the
      // main actor with no task to create and run, and `preconditionIsolated` checks that it is
      // (once: `assumeIsolated` checked twice, itself and then its closure's isolation).
      MainQueue.queue.async {
        MainActor.preconditionIsolated()
        self.runTurn(on: MainActor.shared)
      }
    } else {
      Task.detached { await self.turn(isolation: actor) }
    }
  }

  /// Whether ``close()`` has been called (true once it has returned, on any thread).
  public var isClosed: Bool {
    closed.load(ordering: .acquiring)
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
        state.pending = PendingValues()
        state.budget = 0
      }
      return (state.next, state.pending, state.actor)
    }
    closed.store(true, ordering: .releasing)
    return released.0 != nil  // the closure, values and actor are released here, after the lock
  }

  /// Runs a scheduled turn on the gate's actor.
  @inlinable
  func turn(isolation: isolated any Actor) {
    runTurn(on: isolation)
  }

  /// Called on the gate's actor by the task that a hop scheduled: takes the values that wait
  /// now, at most ``valuesPerTurn``.
  @inlinable
  func runTurn(on actor: any Actor) {
    let drains = state.withLock { state in
      state.scheduled = false
      guard !state.draining else { return false }  // a delivery under way schedules the next
      state.draining = true
      state.budget = min(state.pending.count, Self.valuesPerTurn)
      return true
    }
    if drains { SendingIsolation.with(actor) { drainQueued() } }
  }

  /// Delivers queued values, on the gate's actor, until the budget of the delivery under way is
  /// spent; then ends `draining`, and schedules the next turn when values still wait.
  @inlinable
  func drainQueued() {
    while true {
      var next: (any Actor)?
      let taken: (Next, Value)? = state.withLock { state in
        guard let closure = Next(state.next), state.budget > 0,
          let value = state.pending.popFirst()
        else {
          state.draining = false
          state.budget = 0
          if state.next != nil, !state.pending.isEmpty, !state.scheduled {
            state.scheduled = true
            next = state.actor
          }
          return nil
        }
        state.budget -= 1
        return (closure, value)
      }
      guard let (closure, value) = taken else {
        if let next { schedule(on: next) }
        return
      }
      closure.call(value)
    }
  }

  /// Calls the closure with `value` unless the gate was closed.
  @inlinable
  func call(_ value: Value) {
    state.withLock { Next($0.next) }?.call(value)
  }

  /// The closure, taken out of the lock to be called after it with a value (the caller's, or
  /// one taken from `pending` with it). A struct, because the closure returned bare (or in a
  /// tuple) through the lock's generic result is wrapped in a reabstraction thunk: an
  /// allocation for every value.
  @usableFromInline struct Next {
    @usableFromInline let call: (Value) -> Void

    /// Nil when the gate is closed (`next` is nil).
    @inlinable
    init?(_ next: ((Value) -> Void)?) {
      guard let next else { return nil }
      self.call = next
    }
  }
}
