import Benchmark
import IndefiniteObservable

/// A source that does no reference counting at all when it sends: the cheapest source a stream
/// can have, used to show what a chain costs when the source costs (almost) nothing.
///
/// `CallbackList` must retain its array and each closure while it calls them, because a callback
/// may remove itself and so free what is being called. This list cannot remove: its callbacks
/// stay until the list is freed, so a send can borrow them. Each callback lives in an `Entry`
/// whose `let` field can be called without retaining its context, and the entries sit in a buffer
/// of fixed capacity that is never moved, so a callback that adds a callback during a send does
/// not free what the send is reading (a callback added during a send is first called by the next
/// send). Not thread-safe; not `Sendable`.
final class AppendOnlyList<Value> {
  private final class Entry {
    let callback: (Value) -> Void
    init(_ callback: @escaping (Value) -> Void) { self.callback = callback }
  }

  private let entries: UnsafeMutablePointer<Unmanaged<Entry>>
  private let capacity: Int
  private var count = 0

  init(capacity: Int = 16) {
    self.capacity = capacity
    entries = .allocate(capacity: capacity)
    // Reachable from elsewhere, as a real source is; see `CallbackList.init`.
    blackHole(self)
  }

  deinit {
    for index in 0..<count { entries[index].release() }
    entries.deallocate()
  }

  /// Adds `callback` for the lifetime of the list.
  @inline(__always)
  func add(_ callback: @escaping (Value) -> Void) {
    precondition(count < capacity, "AppendOnlyList is full")
    entries[count] = Unmanaged.passRetained(Entry(callback))
    count += 1
  }

  func send(_ value: Value) {
    // The entries are retained by the list until it is freed, and the list is alive for the whole
    // send (its caller holds it), so borrowing them here is safe.
    for index in 0..<count {
      entries[index]._withUnsafeGuaranteedRef { $0.callback(value) }
    }
  }

  /// This list as a stream. Unsubscribing cannot remove the callback, so it stays connected; the
  /// benchmarks that use this source keep their subscription until the end.
  var stream: ValueObservable<Value> {
    ValueObservable { observer in
      self.add(observer.next)
      return noopDisconnect
    }
  }
}
