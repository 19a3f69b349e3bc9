import Dispatch
import IndefiniteObservable

/// One subscription to a multicast source, as its subscriber list holds it.
///
/// An entry is kept by the list and by the snapshots of sends in progress, and by nothing else:
/// when it leaves the list and those finish, the subscriber's closure (and whatever it captured)
/// is released. The subscription's disconnect keeps only the entry's ``state`` and ``id``. A
/// subscriber on a queue or an actor is a closure that hands each value to its ``ObserverGate``
/// (``GateDelivery``), which counts and delivers it there.
///
/// Not `Sendable`: it crosses threads only inside its storage (the send snapshot), whose
/// hand-proved `Sendable` claim covers it: every stored property is a `let` except `owner`,
/// written only by `init`, and `pending`, read and written only under the lock of the entry's
/// storage.
@usableFromInline
final class MulticastEntry<T> {
  /// The subscriber of a plain subscription (a no-op for an owner-bound one).
  @usableFromInline let next: (T) -> Void
  /// The subscriber of an owner-bound subscription, called with the owner.
  @usableFromInline let boundNext: ((AnyObject, T) -> Void)?
  /// The atomic words that say whether values are delivered.
  @usableFromInline let state: DeliveryState
  /// Identifies the entry in its list, for removal.
  let id: Int
  /// The queue whose gate the subscriber hands values to, for the description; nil otherwise.
  let queue: DispatchQueue?
  /// Whether the send loop counts the subscription's limit (in `state`): a limited subscriber
  /// that it calls itself. A gate's subscriber is counted where the gate delivers.
  let isLimited: Bool
  /// The state of a delivering subscription: ``DeliveryState/fast``,
  /// ``DeliveryState/bound`` or ``DeliveryState/active``.
  let activeState: Int
  /// The object the subscription is bound to, if any: it ends when the object is gone.
  @usableFromInline weak var owner: AnyObject?
  /// The identity of `owner`, for unsubscribing by owner.
  let ownerID: ObjectIdentifier?
  /// Values sent while the entry was receiving its replay, delivered right after it.
  var pending: [T] = []

  init(
    id: Int,
    subscriber: MulticastSubscriber<T>,
    queue: DispatchQueue?,
    state: DeliveryState,
    countsHere: Bool,
    replaying: Bool
  ) {
    self.id = id
    switch subscriber {
    case .plain(let next):
      self.next = next
      self.boundNext = nil
      self.ownerID = nil
    case .owned(let owner, let boundNext):
      self.next = { _ in }
      self.boundNext = boundNext
      self.owner = owner
      self.ownerID = ObjectIdentifier(owner)
    }
    self.queue = queue
    self.isLimited = countsHere && state.isLimited
    self.activeState =
      switch (isLimited, ownerID == nil) {
      case (false, true): DeliveryState.fast
      case (false, false): DeliveryState.bound
      default: DeliveryState.active
      }
    self.state = state
    // Not yet shared: the lock that adds the entry publishes it.
    state.state.store(replaying ? DeliveryState.replaying : activeState, ordering: .relaxed)
    LiveResources.opened(.multicastSubscribers)
  }

  deinit { LiveResources.closed(.multicastSubscribers) }

  /// Calls the subscriber with `value`; returns false, without calling, if its owner is gone.
  func call(_ value: T) -> Bool {
    guard let boundNext else {
      next(value)
      return true
    }
    guard let owner else { return false }
    boundNext(owner, value)
    return true
  }

  /// Whether the entry was bound to an owner that has been deallocated.
  var hasLostItsOwner: Bool {
    ownerID != nil && owner == nil
  }
}

/// The closure of a subscription, with the object it is bound to, if any.
@usableFromInline
enum MulticastSubscriber<T> {
  /// Called with each value.
  case plain((T) -> Void)
  /// Called with `owner`, which is held weakly, and each value; the cast back to the owner's
  /// type is done by the closure.
  case owned(AnyObject, (AnyObject, T) -> Void)

  /// A subscriber bound to `owner`, which `next` receives back with its own type.
  @inlinable
  static func bound<Owner: AnyObject>(
    to owner: Owner, _ next: @escaping (Owner, T) -> Void
  ) -> Self {
    .owned(owner) { owner, value in next(unsafeDowncast(owner, to: Owner.self), value) }
  }
}
