import Foundation
import Multicast

/// Producers of `NotificationCenter` notifications, so that system and app notifications join
/// the value streams of this package.
///
/// ```swift
/// let subscription = Notifications.named(.NSCalendarDayChanged).stream()
///   .map { _ in "a new day" }
///   .subscribe { print($0) }
/// ```
///
/// - What is delivered: `Notification` is not `Sendable` (its `object` and `userInfo` are any
///   values), so it never leaves the posting thread. ``named(_:object:center:)`` delivers the
///   notification's name; ``named(_:object:center:_:)`` delivers what its `@Sendable` transform
///   takes out of each notification, on the posting thread.
/// - Threading: each factory returns a `Producer`, which any code may make and subscribe to.
///   `subscribe { ... }` and `stream()` run the subscriber on the caller's actor: a notification
///   posted on the main thread to a main-actor subscriber is delivered before `post` returns;
///   one posted on another thread (or to a subscriber of another actor) after a hop, in the
///   order posted. `subscribe(on: .sendingThread) { ... }` runs a `@Sendable` subscriber on each
///   posting thread, inside `post`: at once on several threads when several post at once (what
///   `addObserver(forName:object:queue: nil)` does, with an unsubscribe that waits for nothing).
/// - Each subscription adds one block observer to the center and `unsubscribe()`, from any
///   thread, removes it; once it returns, nothing more is delivered, even when a post is in
///   progress on another thread (a call under way there may finish).
/// - Lifetime: the producer keeps the center; it keeps `object` weakly. When `object` is
///   deallocated, subscriptions receive nothing more (a new object at the same address does not
///   match) and new subscriptions receive nothing.
public enum Notifications {
  /// The names of the notifications named `name`, posted by `object` only when it is given: one
  /// value each time such a notification is posted.
  ///
  /// - Parameters:
  ///   - name: The notification name.
  ///   - object: Only notifications whose `object` is this instance are delivered; nil delivers
  ///     every sender's. Kept weakly.
  ///   - center: The center to observe; `.default` unless given.
  public static func named(
    _ name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default
  ) -> Producer<Notification.Name> {
    named(name, object: object, center: center) { $0.name }
  }

  /// What `transform` takes out of the notifications named `name`, posted by `object` only when
  /// it is given.
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
  ///   - transform: Runs on the posting thread, before `post` returns; returns the value to
  ///     deliver, or nil to deliver nothing for this notification.
  public static func named<Value: Sendable>(
    _ name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    _ transform: @escaping @Sendable (Notification) -> Value?
  ) -> Producer<Value> {
    let filter = WeakObject(object)
    return Producer { gate in
      let sender: AnyObject?
      if filter.wasGiven {
        guard let alive = filter.object else { return {} }  // nothing can match
        sender = alive
      } else {
        sender = nil
      }
      let delivery = NotificationDelivery(gate, object: filter, transform: transform)
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

/// The `object` a producer filters by, kept weakly: the one reference to it that the producer's
/// subscriptions share.
private final class WeakObject: Sendable {
  /// Whether an object was given: when one was and is gone, nothing matches.
  let wasGiven: Bool
  // A weak reference set once, in `init` (`weak let`), read from the subscribing and posting
  // threads only to register it with the center and to compare the live object's identity with
  // the one posted: never used as the object itself, which need not be `Sendable`.
  nonisolated(unsafe) weak let object: AnyObject?

  init(_ object: AnyObject?) {
    wasGiven = object != nil
    self.object = object
  }
}

/// One subscription's side of a block observer: `Sendable` as the compiler checks it (`gate` is
/// an `ObserverGate`, `transform` is `@Sendable`), but for its filter's object.
private final class NotificationDelivery<Value: Sendable>: Sendable {
  private let gate: ObserverGate<Value>
  private let transform: @Sendable (Notification) -> Value?
  private let filter: WeakObject

  init(
    _ gate: ObserverGate<Value>, object filter: WeakObject,
    transform: @escaping @Sendable (Notification) -> Value?
  ) {
    self.gate = gate
    self.transform = transform
    self.filter = filter
  }

  /// Runs on the posting thread.
  func receive(_ notification: Notification) {
    if filter.wasGiven {
      // The center matched the object's address; check it is still the same live object.
      guard let object = filter.object, let posted = notification.object,
        object === (posted as AnyObject)
      else { return }
    }
    guard !gate.isClosed, let value = transform(notification) else { return }
    // Posted on the main actor: a main-actor gate delivers at once, any other hops.
    gate.sendFromCurrentThread(value)
  }
}
