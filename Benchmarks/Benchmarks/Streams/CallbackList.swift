import Benchmark
import IndefiniteObservable

/// A callback-list source, written the way users write the sources they wrap: an array of
/// closures, appended on connect and removed on disconnect. Every synchronous scenario that needs
/// a plain source uses this one type, for our streams and for the hand-written floor alike, so the
/// difference between them is what the library adds.
///
/// `send` calls the closures of a local copy of the array, by index, so a callback may add or
/// remove callbacks while a send is in progress. The methods are inlined into their callers so
/// that the specialized copies the optimizer makes of them do not wrap each stored closure in a
/// reabstraction thunk (a closure stored in an array is called through a pointer to its
/// argument; a specialized `add` would take it with the argument in a register, and convert).
final class CallbackList<Value> {
  private var ids: [Int] = []
  private var callbacks: [(Value) -> Void] = []
  private var lastID = 0

  init(capacity: Int = 0) {
    ids.reserveCapacity(capacity)
    callbacks.reserveCapacity(capacity)
    // A real source is reachable from elsewhere, so a callback might change its list: publish
    // this one too. Otherwise, when the optimizer can see every callback, it proves that none
    // does and reads the list once for all sends, which no real source allows.
    blackHole(self)
  }

  /// Adds `callback`; the returned id removes it.
  @inline(__always)
  func add(_ callback: @escaping (Value) -> Void) -> Int {
    lastID += 1
    ids.append(lastID)
    callbacks.append(callback)
    return lastID
  }

  /// Removes the callback added with `id`. The search starts from the end, so removing the
  /// latest callback first costs O(1).
  func remove(_ id: Int) {
    guard let index = ids.lastIndex(of: id) else { return }
    ids.remove(at: index)
    callbacks.remove(at: index)
  }

  func send(_ value: Value) {
    let callbacks = self.callbacks
    for index in callbacks.indices { callbacks[index](value) }
  }

  /// This list as a stream: each subscription adds one callback, and unsubscribing removes it.
  var stream: ValueObservable<Value> {
    ValueObservable { observer in
      let id = self.add(observer.next)
      return { self.remove(id) }
    }
  }
}

/// Our `Subscription`, named where OpenCombine's `Subscription` protocol is not in scope (the
/// module `IndefiniteObservable` shares its name with a type, so it cannot qualify the name).
typealias StreamSubscription = Subscription
