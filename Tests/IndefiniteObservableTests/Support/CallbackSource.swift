import IndefiniteObservable
import Multicast

/// A hand-rolled event source with a callback list, like the ones users wrap: it counts
/// connections and disconnections, and tolerates removal while it is emitting.
final class CallbackSource<T> {
  private var observers: [(id: Int, next: (T) -> Void)] = []
  private var nextID = 0
  private(set) var connects = 0
  private(set) var disconnects = 0

  var observerCount: Int { observers.count }

  /// A stream of this source's values; each subscription adds one observer.
  var stream: ValueObservable<T> {
    ValueObservable { observer in
      let id = self.add(observer.next)
      return { self.remove(id) }
    }
  }

  func emit(_ value: T) {
    // Deliver to a snapshot, skipping observers removed by an earlier callback of this emit.
    for entry in observers where observers.contains(where: { $0.id == entry.id }) {
      entry.next(value)
    }
  }

  private func add(_ next: @escaping (T) -> Void) -> Int {
    connects += 1
    nextID += 1
    observers.append((nextID, next))
    return nextID
  }

  private func remove(_ id: Int) {
    disconnects += 1
    observers.removeAll { $0.id == id }
  }
}

/// A stream that sends `values` synchronously on subscribe and counts its connects and
/// disconnects.
final class SynchronousSource<T> {
  let values: [T]
  private(set) var connects = 0
  private(set) var disconnects = 0

  init(_ values: [T]) { self.values = values }

  var stream: ValueObservable<T> {
    ValueObservable { observer in
      self.connects += 1
      for value in self.values { observer.next(value) }
      return { self.disconnects += 1 }
    }
  }
}
