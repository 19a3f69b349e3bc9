/// An observer's `next`, behind a lock, for sources that call it from a task or a system
/// callback while `unsubscribe()` may run on another thread.
///
/// `@unchecked Sendable`: `next` is read and cleared only under `lock` and called after the lock
/// is released, so once ``cancel()`` returns no call of it begins. The closure itself is called
/// on the source's thread, as the core's threading rule says.
package final class GuardedNext<Value>: @unchecked Sendable {
  private let lock = Lock()
  private var next: ((Value) -> Void)?

  package init(_ next: @escaping (Value) -> Void) {
    self.next = next
  }

  /// Passes `value` on unless cancelled; whether it did.
  @discardableResult
  package func send(_ value: Value) -> Bool {
    guard let next = lock.withLock({ next }) else { return false }
    next(value)
    return true
  }

  /// Whether ``cancel()`` was called.
  package var isCancelled: Bool {
    lock.withLock { next == nil }
  }

  /// Drops `next`; no call begins after this returns. Idempotent.
  package func cancel() {
    let released = lock.withLock { () -> ((Value) -> Void)? in
      defer { next = nil }
      return next
    }
    _ = released  // released here, after the lock
  }
}
