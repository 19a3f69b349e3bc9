/// Hands values sent from any thread to a `@MainActor` handler, one at a time, in the order they
/// were sent.
///
/// A value sent by a caller that is statically on the main actor, while nothing earlier is
/// waiting, is delivered at once, before `send` returns. Any other value is queued, and one main
/// actor task delivers the whole queue; while that task (or a synchronous delivery) runs, newly
/// sent values join the queue, so order holds whichever path a value takes.
///
/// `@unchecked Sendable`: `handler`, `pending`, `head`, `draining` and `scheduled` are read and
/// written only under `lock`; the handler is called after the lock is released.
final class MainActorDelivery<Value: Sendable>: @unchecked Sendable {
  private let lock = Lock()
  private var handler: (@MainActor (Value) -> Void)?
  // Whether delivery ends by itself after one value.
  private let once: Bool
  // Queued values; slots before `head` were delivered and are nil.
  private var pending: [Value?] = []
  private var head = 0
  // Whether a delivery loop is running on the main actor: it empties `pending` before it ends.
  private var draining = false
  // Whether a main-actor task that will run the delivery loop is on its way.
  private var scheduled = false

  /// Creates a delivery to `handler`; with `once`, it cancels itself after the first value.
  init(once: Bool = false, _ handler: @escaping @MainActor (Value) -> Void) {
    self.once = once
    self.handler = handler
  }

  /// Delivers `value` on the main actor: at once when `onMainActor` (the caller is isolated to
  /// the main actor) and nothing is queued, otherwise later, after the values sent before it.
  func send(_ value: Value, onMainActor: Bool) {
    lock.lock()
    guard handler != nil else {
      lock.unlock()
      return
    }
    if onMainActor && !draining && head == pending.count {
      draining = true
      lock.unlock()
      MainActor.assumeIsolated {
        deliver(value)
        drain()
      }
      return
    }
    pending.append(value)
    let schedule = !draining && !scheduled
    if schedule { scheduled = true }
    lock.unlock()
    if schedule {
      Task { @MainActor in self.drainFromTask() }
    }
  }

  /// Stops delivery: once this returns, no handler call begins. Releases the handler and every
  /// queued value. Idempotent.
  func cancel() {
    lock.lock()
    let released = (handler, pending)
    handler = nil
    pending = []
    head = 0
    lock.unlock()
    _ = released  // released here, after the lock
  }

  /// Calls the handler with `value` unless delivery was cancelled.
  @MainActor private func deliver(_ value: Value) {
    guard let handler = lock.withLock({ handler }) else { return }
    handler(value)
    if once { cancel() }
  }

  @MainActor private func drainFromTask() {
    lock.lock()
    scheduled = false
    if draining {  // a synchronous delivery is running; its loop takes the queue
      lock.unlock()
      return
    }
    draining = true
    lock.unlock()
    drain()
  }

  /// Delivers queued values until the queue is empty, then ends the `draining` state.
  @MainActor private func drain() {
    while true {
      lock.lock()
      guard head < pending.count, let handler else {
        pending.removeAll(keepingCapacity: true)  // only nil slots are left
        head = 0
        draining = false
        lock.unlock()
        return
      }
      let value = pending[head].take()!
      head += 1
      lock.unlock()
      handler(value)
      if once { cancel() }
    }
  }
}
