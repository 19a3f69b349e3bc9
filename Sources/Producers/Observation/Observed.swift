import Dispatch
import IndefiniteObservable
import Observation

/// Streams of key paths of `@Observable` objects: the current value first, then every change.
///
/// ```swift
/// @Observable final class Player { var score = 0 }
///
/// let player = Player()
/// let subscription = Observed.values(\.score, of: player).subscribe { print($0) }  // 0
/// player.score = 10  // 10, on the main queue's next turn
/// ```
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public enum Observed {
  /// A stream of `root[keyPath: keyPath]`: its value when subscribed, then its value after each
  /// change, for an object that is read and mutated on `queue`.
  ///
  /// - When and where: subscribe on `queue` (for UI models, the main queue or main actor): the
  ///   current value is delivered synchronously, before `subscribe` returns. A change to any
  ///   observable property the key path reads (`\.user.name` tracks `user` and `name`) schedules
  ///   one read with `queue.async`; that block, which runs after the code that made the change
  ///   has finished its turn on `queue`, reads the new value, tracks it again, and delivers it.
  ///   Changes made in one turn of `queue` are delivered once, as the latest value. A change that
  ///   leaves the value as it was is delivered too (add `removeDuplicates()` to drop those).
  /// - The contract Observation imposes: `withObservationTracking` reports a change in `willSet`,
  ///   before the new value is stored, and only once per registration; this stream reads after
  ///   the change and registers again on each read. Mutating the object off `queue` is a data
  ///   race, in this stream as anywhere.
  /// - Unsubscribe: from any thread; once it returns no delivery begins and tracking is not
  ///   registered again. Observation offers no way to withdraw the one registration in place: it
  ///   holds a weak reference and is released by the object's next change or its deinit.
  /// - Lifetime: the stream keeps `root`; a subscription does not. When `root` is deallocated,
  ///   its subscriptions end quietly.
  public static func values<Root: Observable & AnyObject, Value>(
    _ keyPath: KeyPath<Root, Value>, of root: Root, on queue: DispatchQueue = .main
  ) -> ValueObservable<Value> {
    ValueObservable { observer in
      let tracker = KeyPathTracker(root: root, keyPath: keyPath, queue: queue, next: observer.next)
      tracker.start()
      return tracker.cancel
    }
  }
}

/// One subscription's tracking of a key path.
///
/// `@unchecked Sendable`: `root` is a weak reference assigned in `init` and read (with the key
/// path) only on the subscribing call and then only on `queue`, where the stream's contract
/// says the object lives; `next` is a ``GuardedNext``, thread-safe by itself; the rest is
/// immutable.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
private final class KeyPathTracker<Root: Observable & AnyObject, Value>: RereadTarget,
  @unchecked Sendable
{
  private weak var root: Root?
  private let keyPath: KeyPath<Root, Value>
  private let next: GuardedNext<Value>
  private let reread: Reread

  init(
    root: Root, keyPath: KeyPath<Root, Value>, queue: DispatchQueue,
    next: @escaping (Value) -> Void
  ) {
    self.root = root
    self.keyPath = keyPath
    self.next = GuardedNext(next)
    self.reread = Reread(queue: queue)
    reread.attach(self)
  }

  /// Reads, tracks and delivers the current value; on the subscribing thread.
  func start() {
    guard let value = readAndTrack() else { return }
    next.send(value)
  }

  func cancel() {
    next.cancel()
    reread.detach()
  }

  /// The current value, with tracking registered for its next change; nil when the object is
  /// gone or the subscription ended.
  private func readAndTrack() -> Value? {
    guard !next.isCancelled, let root else { return nil }
    let reread = self.reread
    return withObservationTracking {
      root[keyPath: keyPath]
    } onChange: {
      reread.schedule()  // in willSet, on the mutating thread: read once the change is stored
    }
  }

  /// Runs on `queue` after a change.
  ///
  /// Reached through a ``Reread``, which the Observation registrar keeps: so a subscription lives
  /// on while its object does, even when nobody keeps the ``Subscription``. Unsubscribing
  /// detaches the tracker, so a registration left behind keeps nothing alive.
  func changed() {
    guard let value = readAndTrack() else { return }
    next.send(value)
  }
}

/// What a ``Reread`` calls on `queue`.
private protocol RereadTarget: AnyObject, Sendable {
  func changed()
}

/// Schedules a tracker's read on its queue; non-generic so that the `onChange` closure given to
/// Observation captures no generic type.
///
/// `@unchecked Sendable`: `target` is read and written only under `lock`.
private final class Reread: @unchecked Sendable {
  private let queue: DispatchQueue
  private let lock = Lock()
  private var target: (any RereadTarget)?

  init(queue: DispatchQueue) {
    self.queue = queue
  }

  func attach(_ target: any RereadTarget) {
    lock.withLock { self.target = target }
  }

  /// Lets go of the tracker; a change after this does nothing.
  func detach() {
    let released = lock.withLock { () -> (any RereadTarget)? in
      defer { target = nil }
      return target
    }
    _ = released  // released here, after the lock
  }

  func schedule() {
    guard let target = lock.withLock({ target }) else { return }
    queue.async { target.changed() }
  }
}
