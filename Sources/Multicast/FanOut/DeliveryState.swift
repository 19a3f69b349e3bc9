import Synchronization

/// The atomic words of one subscription to a multicast source: whether (and how) values are
/// delivered to it, and how many deliveries it has left: the package's one count of values
/// (`limit:`), taken where each value is delivered (``MulticastStorage/takeDelivery(from:)``).
///
/// They are an object apart from the ``MulticastEntry`` so that a subscription's disconnect can
/// stop delivery without keeping the subscriber's closure alive. `Atomic` stored in a class has a
/// stable address, as atomics need.
@usableFromInline
final class DeliveryState: Sendable {
  /// Delivery has ended: the subscription was unsubscribed or its owner is gone.
  @inlinable static var ended: Int { 0 }
  /// Active, and plain (synchronous, no limit, no owner): the send loop calls it directly.
  @inlinable static var fast: Int { 1 }
  /// Receiving its replay on the subscribing thread; values sent meanwhile wait in the entry.
  @inlinable static var replaying: Int { 2 }
  /// Active, with a queue or a limit: the send loop takes the slow path.
  @inlinable static var active: Int { 3 }
  /// Active, and bound to an owner (synchronous, no limit): the send loop loads the owner and
  /// calls it directly.
  @inlinable static var bound: Int { 4 }

  /// One of ``ended``, ``fast``, ``replaying``, ``active``, ``bound``.
  @usableFromInline let state: Atomic<Int>
  /// The deliveries a limited subscription has left.
  let remaining: Atomic<Int>
  /// Whether the subscription ends after a number of deliveries (counted in ``remaining``).
  let isLimited: Bool
  /// Where the entry is in its storage's list, so that removing it takes no search; -1 when it
  /// is in none. Read and written only under the storage's lock (atomic, with relaxed ordering,
  /// only so that this class stays `Sendable`).
  let slot: Atomic<Int>

  /// Makes the words of a subscription that ends after `limit` deliveries (nil for no limit):
  /// ``ended`` at once for a limit of zero or less; otherwise ``active`` until its entry sets the
  /// state it starts in.
  @usableFromInline init(limit: Int?) {
    let delivers = limit.map { $0 > 0 } ?? true
    self.state = Atomic(delivers ? DeliveryState.active : DeliveryState.ended)
    self.remaining = Atomic(limit ?? 0)
    self.isLimited = limit != nil
    self.slot = Atomic(-1)
  }

  /// The delivery state: one of ``ended``, ``fast``, ``replaying``, ``active``, ``bound``.
  @inlinable var delivery: Int {
    state.load(ordering: .acquiring)
  }

  /// Ends delivery: once this returns, every later read of ``delivery`` sees ``ended``.
  func end() {
    state.store(DeliveryState.ended, ordering: .releasing)
  }

  /// Moves the delivery state from `expected` to `desired`; false if it was not `expected`.
  func exchange(_ expected: Int, for desired: Int) -> Bool {
    state.compareExchange(
      expected: expected, desired: desired, ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// Takes one delivery from a limited subscription. Returns how many it had before: the
  /// delivery may proceed when that is positive, and it is the last one when that is 1.
  func takeDelivery() -> Int {
    remaining.subtract(1, ordering: .acquiringAndReleasing).oldValue
  }
}
