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
/// - Each subscription adds one block observer to the center and `unsubscribe()` removes it.
/// - Threading: a notification is delivered synchronously on the thread that posts it, before
///   `post` returns, as NotificationCenter does with no queue. `Notification` is not `Sendable`:
///   map it to the values you need (on the posting thread) before sending them elsewhere, for
///   example with `ValueObservable`'s `values` or `subscribeOnMainActor(_:)`.
/// - Unsubscribe: from any thread; once it returns, no delivery begins, even when a post is in
///   progress on another thread (a delivery already begun may finish).
/// - Lifetime: the stream keeps the center; it keeps `object` weakly. When `object` is
///   deallocated, subscriptions receive nothing more (a new object at the same address does not
///   match) and new subscriptions receive nothing.
public enum Notifications {
  /// A stream of the notifications named `name`, posted by `object` only when it is given.
  ///
  /// - Parameters:
  ///   - name: The notification name.
  ///   - object: Only notifications whose `object` is this instance are delivered; nil delivers
  ///     every sender's. Kept weakly.
  ///   - center: The center to observe; `.default` unless given.
  public static func named(
    _ name: Notification.Name, object: AnyObject? = nil, center: NotificationCenter = .default
  ) -> ValueObservable<Notification> {
    let filter = WeakObject(object)
    return ValueObservable { observer in
      let sender: AnyObject?
      if filter.wasGiven {
        guard let alive = filter.object else { return noopDisconnect }  // nothing can match
        sender = alive
      } else {
        sender = nil
      }
      let delivery = NotificationDelivery(observer.next, object: sender)
      let token = center.addObserver(forName: name, object: sender, queue: nil) { notification in
        delivery.receive(notification)
      }
      return {
        delivery.cancel()
        center.removeObserver(token)
      }
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

/// One subscription's side of a block observer.
///
/// `@unchecked Sendable`: `next` is an `ObserverGate` (thread-safe by itself); `object` is a
/// weak reference assigned only in `init` and only compared by identity.
private final class NotificationDelivery: @unchecked Sendable {
  private let next: ObserverGate<Notification>
  private let filters: Bool
  private weak var object: AnyObject?

  init(_ next: @escaping (Notification) -> Void, object: AnyObject?) {
    self.next = ObserverGate(next)
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
    next.send(notification)
  }

  func cancel() {
    next.close()
  }
}
