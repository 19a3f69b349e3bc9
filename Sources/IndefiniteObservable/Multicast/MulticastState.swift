import CIndefiniteObservableAtomics

/// The atomic words of one subscription to a multicast source: whether (and how) values are
/// delivered to it, and how many deliveries it has left.
///
/// The words live in the tail of a `ManagedBuffer`, so their address is stable, as the C atomics
/// need, and they cost no allocation of their own. They are an object apart from the
/// ``MulticastEntry`` so that a subscription's disconnect can stop delivery without keeping the
/// subscriber's closure alive.
///
/// It is shared between threads (ManagedBuffer cannot be declared `Sendable`, so the entries that
/// hold it carry the claim): the words are only read and written with the atomic operations below.
@usableFromInline
final class MulticastState: ManagedBuffer<Void, Int> {
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

  /// Makes the words of a subscription that starts in `state` with `remaining` deliveries.
  static func make(state: Int, remaining: Int) -> MulticastState {
    let buffer = create(minimumCapacity: 2) { _ in () }
    buffer.withUnsafeMutablePointerToElements { words in
      words.initialize(to: state)
      (words + 1).initialize(to: remaining)
    }
    return unsafeDowncast(buffer, to: MulticastState.self)
  }

  /// The delivery state: one of ``ended``, ``fast``, ``replaying``, ``active``, ``bound``.
  @inlinable var delivery: Int {
    withUnsafeMutablePointerToElements { cio_atomic_load_acquire($0) }
  }

  /// Ends delivery: once this returns, every later read of ``delivery`` sees ``ended``.
  func end() {
    withUnsafeMutablePointerToElements { cio_atomic_store_release($0, MulticastState.ended) }
  }

  /// Moves the delivery state from `expected` to `desired`; false if it was not `expected`.
  func exchange(_ expected: Int, for desired: Int) -> Bool {
    withUnsafeMutablePointerToElements { cio_atomic_compare_exchange($0, expected, desired) }
  }

  /// Takes one delivery from a limited subscription. Returns how many it had before: the
  /// delivery may proceed when that is positive, and it is the last one when that is 1.
  func takeDelivery() -> Int {
    withUnsafeMutablePointerToElements { cio_atomic_fetch_sub($0 + 1, 1) }
  }
}
