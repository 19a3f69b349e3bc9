/// A fixed set of locks that many small objects share, so that none of them allocates a lock of
/// its own: an object's lock is chosen by its address.
///
/// Two objects may get the same lock. That costs only contention, never correctness, as long as
/// no one holds two of these locks at once or runs a callback while holding one. The locks are
/// allocated once, on first use, and live as long as the process.
@usableFromInline
package enum SharedLocks {
  /// How many locks there are: a power of two.
  private static let count = 64

  /// The locks, side by side in one allocation that is never freed.
  ///
  /// `nonisolated(unsafe)`: the pointer itself never changes after initialization (which Swift
  /// runs once, thread-safely); what it points to is a set of locks, made to be shared.
  private nonisolated(unsafe) static let locks: UnsafeMutablePointer<PlatformLock> = {
    let locks = UnsafeMutablePointer<PlatformLock>.allocate(capacity: count)
    for index in 0..<count { (locks + index).initializeLock() }
    return locks
  }()

  /// The lock of `object`: always the same one for the same object.
  @usableFromInline
  package static func lock(for object: AnyObject) -> UnsafeMutablePointer<PlatformLock> {
    // Heap objects are aligned to 16 bytes: the bits above those spread neighbours apart.
    let address = UInt(bitPattern: ObjectIdentifier(object))
    return locks + (Int(truncatingIfNeeded: address >> 4) & (count - 1))
  }
}
