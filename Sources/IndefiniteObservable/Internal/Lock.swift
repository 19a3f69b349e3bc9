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
    #if canImport(Darwin)
      platformLock.initialize(to: os_unfair_lock())
    #else
      platformLock.initialize(to: pthread_mutex_t())
      let error = pthread_mutex_init(platformLock, nil)
      precondition(error == 0, "pthread_mutex_init failed: \(error)")
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(platformLock)
    #endif
    platformLock.deinitialize(count: 1)
    platformLock.deallocate()
  }

  @inlinable
  package func lock() {
    #if canImport(Darwin)
      os_unfair_lock_lock(platformLock)
    #else
      pthread_mutex_lock(platformLock)
    #endif
  }

  @inlinable
  package func unlock() {
    #if canImport(Darwin)
      os_unfair_lock_unlock(platformLock)
    #else
      pthread_mutex_unlock(platformLock)
    #endif
  }

  @inlinable
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}
