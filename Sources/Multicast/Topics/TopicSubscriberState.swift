import IndefiniteObservable
import Synchronization

/// What one subscription of a ``TopicBus`` knows besides its handler: its sender filter, whether
/// a `once` subscription has had its event, and its emitter subscription, so that it can end
/// itself from inside a delivery.
///
/// The closure subscribed to the topic's emitter is its only strong holder, so it lives exactly
/// as long as the emitter keeps the subscription; its `deinit` then tells the bus, which drops
/// a topic whose last subscription is gone.
@usableFromInline
final class TopicSubscriberState: Sendable {
  /// The emitter subscription, once known, or whether the subscription has ended.
  private enum Link {
    /// Subscribing to the emitter is under way.
    case pending
    /// Subscribed: ending the subscription unsubscribes this.
    case subscribed(SendableSubscription)
    /// Ended, possibly before the emitter subscription was known.
    case ended
  }

  private weak let bus: TopicBus?
  private let key: TopicKey
  @usableFromInline let filtersSender: Bool
  @usableFromInline weak let sender: (any AnyObject & Sendable)?
  @usableFromInline let once: Bool
  /// Set by the delivery that takes a `once` subscription's event.
  @usableFromInline let claimed = Atomic(false)
  private let link = LockedState(Link.pending)

  /// The state of a subscription to `key` in `bus` (kept weakly, as is `sender`).
  init(bus: TopicBus, key: TopicKey, sender: (any AnyObject & Sendable)?, once: Bool) {
    self.bus = bus
    self.key = key
    self.filtersSender = sender != nil
    self.sender = sender
    self.once = once
  }

  deinit { bus?.subscriberLeft(key) }

  /// Whether an event from `eventSender` is delivered: it passes the sender filter and, for a
  /// `once` subscription, is the one event it takes, in which case the subscription ends.
  ///
  /// A filter whose sender is gone matches nothing again, so the subscription ends.
  @inlinable
  func admits(sender eventSender: AnyObject?) -> Bool {
    if filtersSender {
      guard let sender else {
        end()
        return false
      }
      guard sender === eventSender else { return false }
    }
    if once {
      guard !claimed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
      end()
    }
    return true
  }

  /// Records the emitter subscription; unsubscribes it at once if the subscription has already
  /// ended (a delivery on another thread may have ended it before `subscribe` returned).
  func attach(_ subscription: SendableSubscription) {
    let endedAlready = link.withLock { link in
      guard case .pending = link else { return true }
      link = .subscribed(subscription)
      return false
    }
    if endedAlready { subscription.unsubscribe() }
  }

  /// Ends the subscription: once this returns (or, before ``attach(_:)``, once that returns), no
  /// delivery to it begins. Idempotent.
  @usableFromInline
  func end() {
    let subscription: SendableSubscription? = link.withLock { link in
      defer { link = .ended }
      guard case .subscribed(let subscription) = link else { return nil }
      return subscription
    }
    subscription?.unsubscribe()
  }
}
