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
  /// change, for an object that lives on the actor that makes the stream.
  ///
  /// - When and where: make the stream and subscribe on the object's actor (for UI models, the
  ///   main actor): the current value is delivered synchronously, before `subscribe` returns. A
  ///   change to any observable property the key path reads (`\.user.name` tracks `user` and
  ///   `name`) schedules one read on that actor; it runs after the code that made the change has
  ///   finished its turn, reads the new value, tracks it again, and delivers it. Changes made in
  ///   one turn are delivered once, as the latest value. A change that leaves the value as it
  ///   was is delivered too (add `removeDuplicates()` to drop those). Code that is not isolated
  ///   to an actor cannot make the stream. The value is read and delivered on the actor only, so
  ///   it need not be `Sendable`.
  /// - The contract Observation imposes: `withObservationTracking` reports a change in `willSet`,
  ///   before the new value is stored, and only once per registration; this stream reads after
  ///   the change and registers again on each read. Mutating the object off its actor is a data
  ///   race, in this stream as anywhere.
  /// - Unsubscribe: on the stream's actor (the stream is not `Sendable`); once it returns no
  ///   delivery begins and tracking is not registered again. Observation offers no way to
  ///   withdraw the one registration in place: it holds a weak reference and is released by the
  ///   object's next change or its deinit.
  /// - Lifetime: the stream keeps `root`; a subscription does not. When `root` is deallocated,
  ///   its subscriptions end quietly.
  /// - Ending by object: the stream is an `StreamOfObject` whose `streamedObject` is `root`, so a
  ///   `SubscriptionBag` files what it subscribes to it under `root`, and
  ///   `bag.unsubscribe(from: root)` ends every key path of `root` subscribed through the bag,
  ///   without the streams having been kept. (A stream made from it by an operator names no
  ///   object: subscribe to that with `about: root`.)
  ///
  /// - Parameters:
  ///   - keyPath: The value to read.
  ///   - root: The object, which lives on `isolation`.
  ///   - isolation: The actor the object lives on and values are delivered on: the caller's,
  ///     which the compiler passes.
  public static func values<Root: Observable & AnyObject, Value>(
    _ keyPath: KeyPath<Root, Value>, of root: Root, isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Value> {
    KeyPathValues(root: root) { observer in
      let tracker = KeyPathTracker(root: root, keyPath: keyPath, next: observer.next)
      tracker.start(isolation: isolation)
      return tracker.cancel
    }
  }

  /// A stream of the changes of `root[keyPath: keyPath]`, each with the value before it beside
  /// the value after it, as key-value observing's old and new values are.
  ///
  /// ```swift
  /// @Observable final class Thermostat { var target = 20 }
  ///
  /// let thermostat = Thermostat()
  /// Observed.changes(\.target, of: thermostat).subscribe { print($0.old, $0.new) }
  /// thermostat.target = 22  // 20 22, on the main queue's next turn
  /// ```
  ///
  /// Each subscription reads the value when it subscribes, delivers nothing then, and delivers
  /// `(old, new)` for each value ``values(_:of:isolation:)`` delivers after that: `old` is the
  /// value delivered before it (or read at subscription), so changes made in one turn arrive as
  /// one pair, from the value before the turn to the value after it (turns that end where they
  /// began arrive with `old == new`: add a `filter` to drop those). Threading, unsubscribing,
  /// lifetime and ending by object are those of ``values(_:of:isolation:)``: make the stream and
  /// subscribe on the object's actor, where the pairs are delivered.
  ///
  /// - Parameters: See ``values(_:of:isolation:)``.
  public static func changes<Root: Observable & AnyObject, Value>(
    _ keyPath: KeyPath<Root, Value>, of root: Root, isolation: isolated any Actor = #isolation
  ) -> ValueObservable<(old: Value, new: Value)> {
    let values = Observed.values(keyPath, of: root, isolation: isolation)
    return KeyPathValues(root: root) { observer in
      // The value read at subscription, delivered synchronously, is the first `old` (nil only
      // before it: for an optional `Value`, a nil value is `.some(nil)` here).
      var previous: Value?
      return values.subscribe { value in
        if let old = previous { observer.next((old: old, new: value)) }
        previous = value
      }.unsubscribe
    }
  }
}

/// The stream that ``Observed/values(_:of:isolation:)`` returns: a `ValueObservable` that names
/// its root object, for `SubscriptionBag.unsubscribe(from:)`.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
private final class KeyPathValues<Root: AnyObject, Value>: ValueObservable<Value>, StreamOfObject {
  /// Kept, as the connect closure keeps it too.
  private let root: Root

  var streamedObject: AnyObject? { root }

  init(root: Root, _ connect: @escaping (ValueObserver<Value>) -> Disconnect) {
    self.root = root
    super.init(connect)
  }
}

/// One subscription's tracking of a key path, on the actor that made the stream.
///
/// Nothing of the subscription refers to the tracker but its disconnect and, through its gate
/// (which the tracker holds weakly), the `onChange` closure of its one pending Observation
/// registration, which the object's registrar keeps until the next change or the object's
/// deinit. So a dropped subscription lives as long as its object (attach and forget), and goes
/// with it; an ended one keeps only its closed gate, with the subscriber already released, until
/// that registration fires.
///
/// Not `Sendable`: the tracker, its object and its subscriber are used on the stream's actor
/// only. The gate, bound to that actor, is what the `onChange` closure (called on the mutating
/// thread) holds: it hops to the actor and reads there.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
private final class KeyPathTracker<Root: Observable & AnyObject, Value> {
  private weak var root: Root?
  private let keyPath: KeyPath<Root, Value>
  private let next: (Value) -> Void
  // Held by the pending registration's `onChange`, which sends a change through it.
  private weak var changes: ObserverGate<Void>?

  init(root: Root, keyPath: KeyPath<Root, Value>, next: @escaping (Value) -> Void) {
    self.root = root
    self.keyPath = keyPath
    self.next = next
  }

  /// Makes the gate through which changes reach `isolation`, then reads, tracks and delivers
  /// the current value; on the subscribing call.
  func start(isolation: isolated any Actor) {
    let changes = ObserverGate<Void>(isolation: isolation) { self.deliverCurrent() }
    self.changes = changes
    withExtendedLifetime(changes) { deliverCurrent() }
  }

  /// Ends the subscription: closes the gate, which releases the tracker at once; a pending
  /// registration that fires later finds the gate closed and registers nothing again.
  func cancel() {
    changes?.close()
  }

  /// Reads and delivers the current value, with tracking registered for its next change,
  /// unless the object is gone or the subscription ended.
  private func deliverCurrent() {
    guard let changes, !changes.isClosed, let root else { return }
    let value = withObservationTracking {
      root[keyPath: keyPath]
    } onChange: {
      // In willSet, on the mutating thread: read on the actor once the change is stored.
      changes.send(())
    }
    next(value)
  }
}
