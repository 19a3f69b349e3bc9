import Foundation

/// A value behind a lock, for tests that gather results from several threads.
final class Locked<Value>: @unchecked Sendable {
  // `value` is guarded by `lock`.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func mutate<R>(_ body: (inout Value) -> R) -> R {
    lock.withLock { body(&value) }
  }
}
