import Foundation
import IndefiniteObservable
import Multicast

/// Streams of `NotificationCenter` notifications, so that system and app notifications join
/// the value streams of this package.
///
/// ```swift
/// let subscription = Notifications.named(.NSCalendarDayChanged)
///   .map { _ in "a new day" }
///   .subscribe { print($0) }
/// ```
///
/// - What is delivered: `Notification` is not `Sendable` (its `object` and `userInfo` are any
///   values), so it never leaves the posting thread. ``named(_:object:center:isolation:)``
///   delivers the notification's name; ``named(_:object:center:isolation:_:)`` delivers what
///   its `@Sendable` transform takes out of each notification, on the posting thread.
/// - Threading: a stream is made on an actor (the main actor in top-level code and in
///   `@MainActor` types), and its values are delivered on that actor. A notification posted on
///   the main thread to a main-actor stream is delivered before `post` returns; one posted on
///   another thread (or to a stream of another actor) is delivered after a hop, in the order
///   posted. Code that is not isolated to an actor cannot make a stream.
/// - On the posting thread: ``named(_:object:center:on:_:)`` and
///   ``named(_:object:center:on:transform:_:)`` with `.sendingThread` subscribe a `@Sendable`
///   closure, from any isolation, that runs on the posting thread, before `post` returns.
/// - Each subscription adds one block observer to the center and `unsubscribe()` removes it.
///   Unsubscribe on the stream's actor (the stream is not `Sendable`); once it returns, nothing
///   more is delivered, even when a post is in progress on another thread.
/// - Lifetime: the stream keeps the center; it keeps `object` weakly. When `object` is
///   deallocated, subscriptions receive nothing more (a new object at the same address does not
///   match) and new subscriptions receive nothing.
public enum Notifications {
  /// A stream of the names of the notifications named `name`, posted by `object` only when it
  /// is given: one value each time such a notification is posted.
  ///
  /// - Parameters:
  ///   - name: The notification name.
  ///   - object: Only notifications whose `object` is this instance are delivered; nil delivers
  ///     every sender's. Kept weakly.
  ///   - center: The center to observe; `.default` unless given.
  ///   - isolation: The actor values are delivered on: the caller's, which the compiler passes.
  public static func named(
    _ name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Notification.Name> {
    named(name, object: object, center: center, isolation: isolation) { $0.name }
  }

  /// A stream of what `transform` takes out of the notifications named `name`, posted by
  /// `object` only when it is given.
  ///
  /// ```swift
  /// let sizes = Notifications.named(.downloadFinished) { $0.userInfo?["bytes"] as? Int }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The notification name.
  ///   - object: Only notifications whose `object` is this instance are delivered; nil delivers
  ///     every sender's. Kept weakly.
  ///   - center: The center to observe; `.default` unless given.
  ///   - isolation: The actor values are delivered on: the caller's, which the compiler passes.
  ///   - transform: Runs on the posting thread, before `post` returns; returns the value to
  ///     deliver, or nil to deliver nothing for this notification.
  public static func named<Value: Sendable>(
    _ name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    isolation: isolated any Actor = #isolation,
    _ transform: @escaping @Sendable (Notification) -> Value?
  ) -> ValueObservable<Value> {
    GatedConnection.stream(
      isolation: isolation,
      connection(to: name, object: object, center: center, transform: transform))
  }

  /// Subscribes `next` to the names of the notifications named `name`, posted by `object` only
  /// when it is given, to run on the posting thread, before `post` returns: no thread switch.
  ///
  /// ```swift
  /// let changes = LockedState(0)
  /// let counting = Notifications.named(.NSSystemClockDidChange, on: .sendingThread) { _ in
  ///   changes.withLock { $0 += 1 }
  /// }
  /// ```
  ///
  /// The spelling and the contract of `subscribe(on: .sendingThread)` on a `SendableEmitter`,
  /// for code with no actor to run on (a server, a command-line tool), and what
  /// `addObserver(forName:object:queue: nil)` does, with a `Sendable` closure and an
  /// unsubscribe that waits for nothing:
  ///
  /// - Threading: callable from any isolation. `next` is `@Sendable` and runs on each posting
  ///   thread, inside `post`: at once on several threads when several post at once.
  /// - Lifetime: one block observer is added now and removed by `unsubscribe()`, from any
  ///   thread, `next` included; no call of `next` begins after it returns (one under way in a
  ///   post on another thread may finish). Dropping the subscription does not unsubscribe. The
  ///   center is kept until then; `object` is kept weakly, as for the stream.
  ///
  /// - Parameters:
  ///   - name: The notification name.
  ///   - object: Only notifications whose `object` is this instance are delivered; nil delivers
  ///     every sender's. Kept weakly.
  ///   - center: The center to observe; `.default` unless given.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with the name of each notification, on the posting thread.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func named(
    _ name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Notification.Name) -> Void
  ) -> SendableSubscription {
    named(name, object: object, center: center, on: delivery, transform: { $0.name }, next)
  }

  /// Subscribes `next` to what `transform` takes out of the notifications named `name`, posted
  /// by `object` only when it is given, to run on the posting thread, before `post` returns
  /// (see ``named(_:object:center:on:_:)`` for the threading and the lifetime).
  ///
  /// ```swift
  /// let total = LockedState(0)
  /// let counting = Notifications.named(
  ///   .downloadFinished, on: .sendingThread, transform: { $0.userInfo?["bytes"] as? Int }
  /// ) { bytes in total.withLock { $0 += bytes } }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The notification name.
  ///   - object: Only notifications whose `object` is this instance are delivered; nil delivers
  ///     every sender's. Kept weakly.
  ///   - center: The center to observe; `.default` unless given.
  ///   - delivery: `.sendingThread`.
  ///   - transform: Runs on the posting thread; returns the value to deliver, or nil to
  ///     deliver nothing for this notification.
  ///   - next: Called with each value, on the posting thread, after `transform`.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func named<Value: Sendable>(
    _ name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    on delivery: SynchronousDelivery,
    transform: @escaping @Sendable (Notification) -> Value?,
    _ next: @escaping @Sendable (Value) -> Void
  ) -> SendableSubscription {
    GatedConnection.subscription(
      ObserverGate(next),
      connection(to: name, object: object, center: center, transform: transform))
  }

  /// The core of every form: what connects one subscriber's gate to a block observer of its own
  /// on `center`, which sends what `transform` takes out of each notification, on the posting
  /// thread.
  private static func connection<Value: Sendable>(
    to name: Notification.Name,
    object: AnyObject?,
    center: NotificationCenter,
    transform: @escaping @Sendable (Notification) -> Value?
  ) -> (ObserverGate<Value>) -> @Sendable () -> Void {
    let filter = WeakObject(object)
    return { gate in
      let sender: AnyObject?
      if filter.wasGiven {
        guard let alive = filter.object else { return noopDisconnect }  // nothing can match
        sender = alive
      } else {
        sender = nil
      }
      let delivery = NotificationDelivery(gate, object: sender, transform: transform)
      // `nonisolated(unsafe)`: the token is not `Sendable`, and the disconnect that gives it
      // back is, as every producer's is. It relies on Foundation's contract that
      // `removeObserver` may be called from any thread, and on the token being used for
      // nothing else: no code here reads it. (It cannot be sent into a `Mutex` instead: it
      // comes from a call that took `sender`, which the recipe holds.)
      nonisolated(unsafe) let token = center.addObserver(
        forName: name, object: sender, queue: nil
      ) { notification in
        delivery.receive(notification)
      }
      return { center.removeObserver(token) }
    }
  }
}

/// An optional object kept weakly by a stream recipe.
private struct WeakObject {
  let wasGiven: Bool
  weak var object: AnyObject?

  init(_ object: AnyObject?) {
    wasGiven = object != nil
    self.object = object
  }
}

/// One subscription's side of a block observer: `Sendable` as the compiler checks it (`gate` is
/// an `ObserverGate`, `transform` is `@Sendable`), but for `object`.
private final class NotificationDelivery<Value: Sendable>: Sendable {
  private let gate: ObserverGate<Value>
  private let transform: @Sendable (Notification) -> Value?
  private let filters: Bool
  // A weak reference set once, in `init` (`weak let`), read from the posting threads only to
  // compare the live object's identity with the one posted: never used as the object itself,
  // which need not be `Sendable`.
  private nonisolated(unsafe) weak let object: AnyObject?

  init(
    _ gate: ObserverGate<Value>, object: AnyObject?,
    transform: @escaping @Sendable (Notification) -> Value?
  ) {
    self.gate = gate
    self.transform = transform
    self.filters = object != nil
    self.object = object
  }

  /// Runs on the posting thread.
  func receive(_ notification: Notification) {
    if filters {
      // The center matched the object's address; check it is still the same live object.
      guard let object, let posted = notification.object, object === (posted as AnyObject) else {
        return
      }
    }
    guard !gate.isClosed, let value = transform(notification) else { return }
    // Posted on the main actor: a main-actor gate delivers at once, any other hops.
    gate.sendFromCurrentThread(value)
  }
}
