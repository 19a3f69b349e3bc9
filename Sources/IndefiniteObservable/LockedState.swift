#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// State that only a lock lets you reach: ``withLock(_:)`` is the only way to the state, so the
/// type, not a comment, says what the lock guards (the shape of swift-nio's `NIOLockedValueBox`).
///
/// ```swift
/// let hits = LockedState(0)
/// hits.withLock { $0 += 1 }
/// ```
///
/// **Why not `Mutex`.** Synchronization's `Mutex` would do, and this package uses its `Atomic`.
/// But on Linux, `Mutex` is built on futexes inside the prebuilt standard library, where
/// ThreadSanitizer cannot see it: every access it guards is reported as a race (four threads
/// incrementing a `Mutex<Int>` give two reports with Swift 6.3.1), so a ThreadSanitizer run
/// could no longer check this package's locking. This lock is a `pthread_mutex_t` (adaptive on
/// Linux: it spins briefly before sleeping) or, on Apple platforms, an `os_unfair_lock`, which
/// ThreadSanitizer understands. Under contention it measured as fast as `Mutex` here.
///
/// - Threading: ``withLock(_:)`` may be called from any thread. It is not re-entrant: calling it
///   again from inside `body` on the same state deadlocks. Run no callback of someone else's
///   inside `body`, and release nothing whose `deinit` may run such code: take it out, return,
///   then call or release it.
/// - Closures: keep them in a struct of your own, not as the state itself or in a tuple. A
///   closure stored as a generic value is reabstracted, and wrapped in one more thunk, every
///   time `withLock` writes it back, so each call gets slower than the last.
/// - `Sendable` when `State` is.
public final class LockedState<State> {
  // The lock lives at an address of its own that never changes, allocated once; the state is
  // reached only with the lock held (`@exclusivity(unchecked)`: the lock, not the runtime's
  // dynamic check, keeps its accesses apart).
  @usableFromInline let lock: UnsafeMutablePointer<PlatformLock>
  @exclusivity(unchecked) @usableFromInline var state: State

  /// Creates a lock guarding `initial`.
  public init(_ initial: State) {
    state = initial
    lock = .allocate(capacity: 1)
    lock.initializeLock()
  }

  deinit {
    lock.deinitializeLock()
    lock.deallocate()
  }

  /// Runs `body` with exclusive access to the state, and returns what it returns.
  @inlinable
  public func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

// `@unchecked Sendable` (the hand-proved claim of the core): the state is reached only through
// `withLock`, under the lock (`state` is internal, and nothing else in the module touches it),
// and is itself `Sendable`. A breach (an access outside the lock) is a race that
// ThreadSanitizer reports in any concurrent test under `.ci/run`, MulticastStressTests among
// them. The lock's own contract, no re-entrance, is checked in debug builds: a nested
// `withLock` on the same thread stops the program rather than deadlocking it
// (IsolationAssertionTests.aLockTakenAgainFromInsideItsBodyStops).
extension LockedState: @unchecked Sendable where State: Sendable {}

#if canImport(Darwin)
  @usableFromInline typealias PlatformLock = os_unfair_lock
#else
  @usableFromInline typealias PlatformLock = pthread_mutex_t
#endif

extension UnsafeMutablePointer where Pointee == PlatformLock {
  /// Initializes the memory at this address as an unlocked lock.
  fileprivate func initializeLock() {
    #if canImport(Darwin)
      initialize(to: os_unfair_lock())
    #else
      var attributes = pthread_mutexattr_t()
      pthread_mutexattr_init(&attributes)
      defer { pthread_mutexattr_destroy(&attributes) }
      #if DEBUG
        // Error-checking in debug builds: taking the lock again on the thread that holds it
        // returns EDEADLK, which `lock()` asserts against, instead of deadlocking.
        // (`os_unfair_lock` traps on it by itself.)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
      #elseif canImport(Glibc)
        // Adaptive: a thread that finds the lock held spins briefly before it sleeps. Every
        // critical section of this package is a few loads and stores.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
      #endif
      initialize(to: pthread_mutex_t())
      let error = pthread_mutex_init(self, &attributes)
      precondition(error == 0, "pthread_mutex_init failed: \(error)")
    #endif
  }

  /// Destroys the unlocked lock at this address, leaving the memory uninitialized.
  fileprivate func deinitializeLock() {
    #if !canImport(Darwin)
      pthread_mutex_destroy(self)
    #endif
    deinitialize(count: 1)
  }

  @inlinable
  func lock() {
    #if canImport(Darwin)
      os_unfair_lock_lock(self)
    #else
      let error = pthread_mutex_lock(self)
      assert(error != EDEADLK, "LockedState.withLock called from inside its own body")
    #endif
  }

  @inlinable
  func unlock() {
    #if canImport(Darwin)
      os_unfair_lock_unlock(self)
    #else
      pthread_mutex_unlock(self)
    #endif
  }
}
