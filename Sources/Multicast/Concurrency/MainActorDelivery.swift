import IndefiniteObservable

/// Hands values sent from any thread to a `@MainActor` handler, one at a time, in the order they
/// were sent.
///
/// A value sent by a caller that is statically on the main actor, while nothing earlier is
/// waiting, is delivered at once, before `send` returns. Any other value is queued, and one main
/// actor task delivers the whole queue; while that task (or a synchronous delivery) runs, newly
/// sent values join the queue, so order holds whichever path a value takes.
///
/// Its state, the handler included, lives inside a ``LockedState``: everything in it is
/// `Sendable` (a `@MainActor` closure is), so the type is `Sendable` with nothing unchecked. The
/// handler is called after the lock is released.
final class MainActorDelivery<Value: Sendable>: Sendable {
  private struct State {
    var handler: (@MainActor (Value) -> Void)?
    // Queued values; slots before `head` were delivered and are nil.
    var pending: [Value?] = []
    var head = 0
    // Whether a delivery loop is running on the main actor: it empties `pending` before it ends.
    var draining = false
    // Whether a main-actor task that will run the delivery loop is on its way.
    var scheduled = false
  }

  /// What `send` does once it has released the lock.
  private enum SendAction { case none, deliverNow, schedule }

  private let state: LockedState<State>
  // Whether delivery ends by itself after one value.
  private let once: Bool

  /// Creates a delivery to `handler`; with `once`, it cancels itself after the first value.
  init(once: Bool = false, _ handler: @escaping @MainActor (Value) -> Void) {
    self.once = once
    self.state = LockedState(State(handler: handler))
  }

  /// Delivers `value` on the main actor: at once when `onMainActor` (the caller is isolated to
  /// the main actor) and nothing is queued, otherwise later, after the values sent before it.
  func send(_ value: Value, onMainActor: Bool) {
    let action: SendAction = state.withLock { state in
      guard state.handler != nil else { return .none }
      if onMainActor && !state.draining && state.head == state.pending.count {
        state.draining = true
        return .deliverNow
      }
      state.pending.append(value)
      guard !state.draining && !state.scheduled else { return .none }
      state.scheduled = true
      return .schedule
    }
    switch action {
    case .none: break
    case .deliverNow:
      MainActor.assumeIsolated {
        deliver(value)
        drain()
      }
    case .schedule:
      Task { @MainActor in self.drainFromTask() }
    }
  }

  /// Stops delivery: once this returns, no handler call begins. Releases the handler and every
  /// queued value. Idempotent.
  func cancel() {
    let released = state.withLock { state in
      defer {
        state.handler = nil
        state.pending = []
        state.head = 0
      }
      return (state.handler, state.pending)
    }
    _ = released  // released here, after the lock
  }

  /// Calls the handler with `value` unless delivery was cancelled.
  @MainActor private func deliver(_ value: Value) {
    guard let handler = state.withLock({ $0.handler }) else { return }
    handler(value)
    if once { cancel() }
  }

  @MainActor private func drainFromTask() {
    let drains = state.withLock { state in
      state.scheduled = false
      guard !state.draining else { return false }  // a synchronous delivery takes the queue
      state.draining = true
      return true
    }
    if drains { drain() }
  }

  /// Delivers queued values until the queue is empty, then ends the `draining` state.
  @MainActor private func drain() {
    while true {
      let next: (@MainActor (Value) -> Void, Value)? = state.withLock { state in
        guard state.head < state.pending.count, let handler = state.handler else {
          state.pending.removeAll(keepingCapacity: true)  // only nil slots are left
          state.head = 0
          state.draining = false
          return nil
        }
        let value = state.pending[state.head].take()!
        state.head += 1
        return (handler, value)
      }
      guard let (handler, value) = next else { return }
      handler(value)
      if once { cancel() }
    }
  }
}
