import IndefiniteObservable

/// A list of values that subscribers on several threads append to.
///
/// `@unchecked Sendable`: `storage` is read and written only under `lock`.
final class Recorder<T>: @unchecked Sendable {
  private let lock = Lock()
  private var storage: [T] = []

  func append(_ value: T) {
    lock.withLock { storage.append(value) }
  }

  var values: [T] {
    lock.withLock { storage }
  }

  var count: Int {
    lock.withLock { storage.count }
  }
}

/// A counter that threads increment at once.
///
/// `@unchecked Sendable`: `storage` is read and written only under `lock`.
final class Counter: @unchecked Sendable {
  private let lock = Lock()
  private var storage = 0

  /// Adds one and returns the new value.
  @discardableResult
  func increment() -> Int {
    lock.withLock {
      storage += 1
      return storage
    }
  }

  var value: Int {
    lock.withLock { storage }
  }
}

/// An object whose deallocation tests watch through a weak reference.
final class Witness {
  var received: [Int] = []
}
