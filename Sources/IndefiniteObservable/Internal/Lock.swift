#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Bionic)
  import Bionic
#endif

#if canImport(Darwin)
  @usableFromInline
  package typealias PlatformLock = os_unfair_lock
#else
  @usableFromInline
  package typealias PlatformLock = pthread_mutex_t
#endif

/// A non-recursive mutual-exclusion lock whose storage has a stable address.
///
/// `Mutex` from Synchronization would do, but needs macOS 15 / iOS 18 on Apple platforms.
/// Callers never run user code while holding it.
@usableFromInline
package final class Lock: @unchecked Sendable {
  // The platform lock is the synchronization primitive itself; it lives in manually allocated
  // memory so its address never moves.
  @usableFromInline
  package let platformLock: UnsafeMutablePointer<PlatformLock>

  @usableFromInline
  package init() {
    platformLock = .allocate(capacity: 1)
    platformLock.initializeLock()
  }

  deinit {
    platformLock.deinitializeLock()
    platformLock.deallocate()
  }

  @inlinable
  package func lock() {
    platformLock.lock()
  }

  @inlinable
  package func unlock() {
    platformLock.unlock()
  }

  @inlinable
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// The platform calls on a lock that lives at a fixed address: the only place that knows which
/// platform lock is in use.
extension UnsafeMutablePointer where Pointee == PlatformLock {
  /// Initializes the uninitialized memory at this address as an unlocked lock.
  @usableFromInline
  package func initializeLock() {
    #if canImport(Darwin)
      initialize(to: os_unfair_lock())
    #elseif canImport(Glibc)
      // Adaptive: a thread that finds the lock held spins briefly before it sleeps. Every
      // critical section here is a few loads and stores, so the holder is nearly always done
      // within the spin, and two threads sending at once do not pay a futex sleep and wake-up
      // (microseconds) for a lock held for nanoseconds.
      var attributes = pthread_mutexattr_t()
      pthread_mutexattr_init(&attributes)
      defer { pthread_mutexattr_destroy(&attributes) }
      pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
      initialize(to: pthread_mutex_t())
      let error = pthread_mutex_init(self, &attributes)
      precondition(error == 0, "pthread_mutex_init failed: \(error)")
    #else
      initialize(to: pthread_mutex_t())
      let error = pthread_mutex_init(self, nil)
      precondition(error == 0, "pthread_mutex_init failed: \(error)")
    #endif
  }

  /// Destroys the unlocked lock at this address, leaving the memory uninitialized.
  @usableFromInline
  package func deinitializeLock() {
    #if !canImport(Darwin)
      pthread_mutex_destroy(self)
    #endif
    deinitialize(count: 1)
  }

  @inlinable
  package func lock() {
    #if canImport(Darwin)
      os_unfair_lock_lock(self)
    #else
      pthread_mutex_lock(self)
    #endif
  }

  @inlinable
  package func unlock() {
    #if canImport(Darwin)
      os_unfair_lock_unlock(self)
    #else
      pthread_mutex_unlock(self)
    #endif
  }
}
