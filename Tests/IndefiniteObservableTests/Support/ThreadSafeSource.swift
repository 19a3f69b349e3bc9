import Foundation
import IndefiniteObservable
import Multicast

/// A thread-safe source with an observer list, like the multicast sources users wrap: `emit`
/// may be called from any thread; it counts connections and disconnections.
final class ThreadSafeSource<T>: @unchecked Sendable {
  // `observers`, `nextID`, `connectCount` and `disconnectCount` are guarded by `lock`.
  private let lock = NSLock()
  private var observers: [Int: (T) -> Void] = [:]
  private var nextID = 0
  private var connectCount = 0
  private var disconnectCount = 0

  var stream: ValueObservable<T> {
    ValueObservable { observer in
      let id = self.lock.withLock {
        self.connectCount += 1
        self.nextID += 1
        self.observers[self.nextID] = observer.next
        return self.nextID
      }
      return {
        let removed = self.lock.withLock {
          self.disconnectCount += 1
          return self.observers.removeValue(forKey: id)
        }
        _ = removed
      }
    }
  }

  var connects: Int { lock.withLock { connectCount } }
  var disconnects: Int { lock.withLock { disconnectCount } }
  var observerCount: Int { lock.withLock { observers.count } }

  func emit(_ value: T) {
    let snapshot = lock.withLock { Array(observers.values) }
    for next in snapshot { next(value) }
  }
}
