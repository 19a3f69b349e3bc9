import IndefiniteObservable

/// The observers of a shared source, for producers whose subscriptions share one system
/// resource. Sends iterate a snapshot taken under the lock and call no observer under it.
///
/// `@unchecked Sendable`: `entries` and `nextToken` are read and written only under `lock`.
/// Removing an entry also clears its `alive` box under the lock, and a send checks that box
/// before each call, so after `remove` returns on the sending queue no call begins.
final class ObserverList<Value>: @unchecked Sendable {
  private final class Entry {
    let token: Int
    var next: ((Value) -> Void)?
    init(token: Int, next: @escaping (Value) -> Void) {
      self.token = token
      self.next = next
      LiveResources.opened(.producerObservers)
    }

    deinit { LiveResources.closed(.producerObservers) }
  }

  private let lock = Lock()
  private var entries: [Entry] = []
  private var nextToken = 0

  /// Adds an observer; the token removes it.
  func add(_ next: @escaping (Value) -> Void) -> Int {
    lock.withLock {
      nextToken += 1
      entries.append(Entry(token: nextToken, next: next))
      return nextToken
    }
  }

  /// Removes an observer and releases its closure; idempotent.
  func remove(_ token: Int) {
    let removed: Entry? = lock.withLock {
      guard let index = entries.firstIndex(where: { $0.token == token }) else { return nil }
      let entry = entries.remove(at: index)
      entry.next = nil
      return entry
    }
    _ = removed  // released here, outside the lock
  }

  /// Sends `value` to every observer present when the send began and not removed since.
  func send(_ value: Value) {
    let snapshot = lock.withLock { entries }
    for entry in snapshot {
      guard let next = lock.withLock({ entry.next }) else { continue }
      next(value)
    }
  }
}
