import Synchronization

/// A subscription that any thread may end, because its disconnect is `@Sendable`: what a
/// `Sendable` source returns (`SendableEmitter`, `SendableCurrentValue`, a producer's
/// `.sendingThread` form), as Swift's `Task` handle may be cancelled from anywhere.
///
/// ``unsubscribe()`` calls the disconnect exactly once, however often and from however many
/// threads it is called, then releases it. Dropping the subscription does **not** unsubscribe,
/// as with ``Subscription``.
///
/// ```swift
/// let subscription = SendableSubscription { print("disconnected") }
/// Task.detached { subscription.unsubscribe() }
/// ```
///
/// - Threading: `Sendable`, checked by the compiler: the disconnect is a `@Sendable` closure,
///   taken out of an atomic slot by the one call that wins it, and run on that call's thread
///   with no lock held, so it may call `unsubscribe()` again (which returns at once).
/// - `Subscription(_:)` wraps one for a list of ``Subscription``s.
public final class SendableSubscription: Sendable {
  /// The disconnect, owned (+1) by the slot until ``unsubscribe()`` exchanges it for nil.
  private let slot: Atomic<Unmanaged<SendableDisconnect>?>

  /// Creates a subscription that will call `disconnect` on the first ``unsubscribe()``.
  public init(_ disconnect: @escaping @Sendable () -> Void) {
    slot = Atomic(Unmanaged.passRetained(SendableDisconnect(disconnect)))
    LiveResources.opened(.subscriptions)
  }

  deinit {
    slot.load(ordering: .acquiring)?.release()
    LiveResources.closed(.subscriptions)
  }

  /// Disconnects the stream: the first call, from any thread, runs disconnect on its own
  /// thread; later calls do nothing.
  ///
  /// When the source honours its disconnect synchronously, as every source in this package
  /// does, no value reaches the observer after this method returns.
  public func unsubscribe() {
    guard let disconnect = slot.exchange(nil, ordering: .acquiringAndReleasing) else { return }
    disconnect.takeRetainedValue().run()
  }

  /// Whether ``unsubscribe()`` has been called.
  public var isUnsubscribed: Bool {
    slot.load(ordering: .acquiring) == nil
  }
}

extension SendableSubscription: Hashable {
  /// Whether `lhs` and `rhs` are the same subscription object (identity).
  public static func == (lhs: SendableSubscription, rhs: SendableSubscription) -> Bool {
    lhs === rhs
  }

  /// Hashes the subscription's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}

/// A `@Sendable` disconnect in an object of its own, which an atomic slot can hold.
private final class SendableDisconnect: Sendable {
  let run: @Sendable () -> Void

  init(_ run: @escaping @Sendable () -> Void) {
    self.run = run
  }
}
