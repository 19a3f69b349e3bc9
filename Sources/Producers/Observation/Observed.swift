import Dispatch
import IndefiniteObservable
import Multicast
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
  /// - Ending by object: the stream is an `ObjectStream` whose `streamedObject` is `root`, so a
  ///   `SubscriptionBag` files what it subscribes to it under `root`, and
  ///   `bag.unsubscribe(from: root)` ends every key path of `root` subscribed through the bag,
  ///   without the streams having been kept. (A stream made from it by an operator names no
  ///   object: subscribe to that with `about: root`.)
  public static func values<Root: Observable & AnyObject, Value>(
    _ keyPath: KeyPath<Root, Value>, of root: Root, on queue: DispatchQueue = .main
  ) -> ValueObservable<Value> {
    KeyPathValues(root: root) { observer in
      let tracker = KeyPathTracker(root: root, keyPath: keyPath, queue: queue, next: observer.next)
      tracker.start()
      return tracker.cancel
    }
  }
}

/// The stream that ``Observed/values(_:of:on:)`` returns: a `ValueObservable` that names its
/// root object, for `SubscriptionBag.unsubscribe(from:)`.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
private final class KeyPathValues<Root: AnyObject, Value>: ValueObservable<Value>, ObjectStream {
  /// Kept, as the connect closure keeps it too.
  private let root: Root

  var streamedObject: AnyObject? { root }

  init(root: Root, _ connect: @escaping (ValueObserver<Value>) -> Disconnect) {
    self.root = root
    super.init(connect)
  }
}

/// One subscription's tracking of a key path.
///
/// Nothing of the subscription refers to the tracker but its disconnect and the `onChange`
/// closure of its one pending Observation registration, which the object's registrar keeps until
/// the next change or the object's deinit. So a dropped subscription lives as long as its object
/// (attach and forget), and goes with it; an ended one keeps only this small shell, with its
/// subscriber already released, until that registration fires.
///
/// `@unchecked Sendable`: `root` is a weak reference assigned in `init` and read (with the key
/// path) only on the subscribing call and then only on `queue`, where the stream's contract
/// says the object lives; `next` is an `ObserverGate`, thread-safe by itself; the rest is
/// immutable.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
private final class KeyPathTracker<Root: Observable & AnyObject, Value>: TrackedKeyPath,
  @unchecked Sendable
{
  private weak var root: Root?
  private let keyPath: KeyPath<Root, Value>
  private let queue: DispatchQueue
  private let next: ObserverGate<Value>

  init(
    root: Root, keyPath: KeyPath<Root, Value>, queue: DispatchQueue,
    next: @escaping (Value) -> Void
  ) {
    self.root = root
    self.keyPath = keyPath
    self.queue = queue
    self.next = ObserverGate(next)
  }

  /// Reads, tracks and delivers the current value; on the subscribing thread.
  func start() {
    guard let value = readAndTrack() else { return }
    next.send(value)
  }

  /// Ends the subscription: releases the subscriber at once; a pending registration that
  /// fires later finds the gate closed and registers nothing again.
  func cancel() {
    next.close()
  }

  /// The current value, with tracking registered for its next change; nil when the object is
  /// gone or the subscription ended.
  private func readAndTrack() -> Value? {
    guard !next.isClosed, let root else { return nil }
    let tracker: any TrackedKeyPath = self  // not generic, for the `@Sendable` onChange
    let queue = self.queue
    return withObservationTracking {
      root[keyPath: keyPath]
    } onChange: {
      // In willSet, on the mutating thread: read once the change is stored.
      queue.async { tracker.changed() }
    }
  }

  /// Runs on `queue` after a change.
  func changed() {
    guard let value = readAndTrack() else { return }
    next.send(value)
  }
}

/// What the `onChange` closure of a registration calls, on the tracker's queue: an existential,
/// so that the closure given to Observation captures no generic type.
private protocol TrackedKeyPath: AnyObject, Sendable {
  func changed()
}
