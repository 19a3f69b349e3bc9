import IndefiniteObservable

/// A subscriber's closure that a source calls until the subscription ends: the one way, in this
/// package, to stop calling a closure once its subscription has ended.
///
/// Sources that call their subscriber from a queue, a task or a system callback, while
/// `unsubscribe()` may run on another thread, hold the subscriber in a gate. The source calls
/// ``send(_:)`` for each value; the subscription's disconnect calls ``close()``:
///
/// ```swift
/// let clock = ValueObservable<Date> { observer in
///   let gate = ObserverGate(observer.next)
///   let timer = DispatchSource.makeTimerSource(queue: .global())
///   timer.setEventHandler { @Sendable in gate.send(Date()) }
///   timer.schedule(deadline: .now(), repeating: .milliseconds(10))
///   timer.activate()
///   return {
///     gate.close()
///     timer.cancel()
///   }
/// }
/// ```
///
/// - Threading: ``send(_:)`` and ``close()`` may be called from any thread, at once. The closure
///   runs on the thread that calls ``send(_:)``, with no lock held, so it may itself close the
///   gate or unsubscribe. Calls from several threads at once run at once: a source that needs
///   them one at a time sends from one serial queue.
/// - Closing: once ``close()`` returns, no call of the closure begins (one already running on
///   another thread may finish). `close()` releases the closure, and with it whatever it
///   captured, on the closing thread after the internal lock is released, so the deinits of
///   those captures may use the gate or its source.
public final class ObserverGate<Value>: @unchecked Sendable {
  // `@unchecked Sendable`: the closure lives inside the lock and is called after the lock is
  // released; it is the subscriber's closure, which is not `Sendable`, called on the source's
  // thread as the core's threading rule says.
  private let next: LockedState<Slot>

  /// The closure, in a struct: a closure kept directly as a generic state would be reabstracted,
  /// and wrapped in one more thunk, at every write-back of `withLock`.
  private struct Slot {
    var next: ((Value) -> Void)?
  }

  /// Creates an open gate to `next`.
  public init(_ next: @escaping (Value) -> Void) {
    self.next = LockedState(Slot(next: next))
  }

  /// Calls the closure with `value` on this thread, unless the gate is closed.
  ///
  /// - Returns: Whether the closure was called: false once the gate is closed.
  @discardableResult
  public func send(_ value: Value) -> Bool {
    guard let next = next.withLock({ $0.next }) else { return false }
    next(value)
    return true
  }

  /// Whether ``close()`` has been called.
  public var isClosed: Bool {
    next.withLock { $0.next == nil }
  }

  /// Closes the gate: no call of the closure begins after this returns. Idempotent.
  ///
  /// - Returns: True for the call that closed the gate, false when it was already closed.
  @discardableResult
  public func close() -> Bool {
    let released = next.withLock { $0.next.take() }
    return released != nil  // the closure is released here, after the lock
  }
}
