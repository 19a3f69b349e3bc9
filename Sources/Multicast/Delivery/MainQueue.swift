import Dispatch

#if os(Linux)
  import CIndefiniteObservable
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Tells whether the calling code runs on the main queue, and so on the main actor.
///
/// ```swift
/// if MainQueue.isCurrent {
///   MainActor.assumeIsolated { label.text = "ready" }  // no hop needed
/// }
/// ```
///
/// The main queue runs the main actor's jobs, the blocks of `DispatchQueue.main` and of queues
/// that target it, and, before `dispatchMain()`, the main thread's code (libdispatch makes the
/// main queue the main thread's current queue). Each of these excludes every other, so code that
/// finds itself here runs isolated to the main actor, as `MainActor.assumeIsolated` agrees. The
/// sources of this module use it to call main-actor subscribers at once, without a hop, and
/// ``ObserverGate`` hops to the main actor with a block of the main queue, which checks with
/// `MainActor.preconditionIsolated()` that it runs there. (Both rest on the main actor's
/// executor being the main queue: so it is on every platform unless a program installs an
/// executor of its own for the main actor, which this package does not support.)
///
/// - The rule: true when `DispatchQueue.getSpecific` finds a key that was set on the main queue,
///   or when the calling thread is the process's main thread. The main queue runs only on the
///   main thread until `dispatchMain()` (then the main thread has ended), so the main thread
///   excludes the main actor's other work everywhere, also inside another queue's `sync` block,
///   as `MainActor.assumeIsolated` agrees there; this is how a read made on the main thread by
///   `MainLoop.run()` of Producers reaches a main-actor subscriber with no hop. It is not
///   `Thread.isMainThread` alone: on Linux, once the main thread has called `dispatchMain()`, a
///   worker thread drains the main queue, so the main actor runs on a thread that is not the
///   main thread, and the key finds it.
/// - Threading: callable from any thread. Whether a thread is the main thread is looked up once
///   per thread (a system call on Linux) and kept in a thread-specific value, and is asked
///   first; the first call off the main thread sets the key on the main queue (once,
///   thread-safely), which does not need the main queue to run.
public enum MainQueue {
  private static let key: DispatchSpecificKey<UInt8> = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
  }()

  /// The main queue, made once: on Linux, each read of `DispatchQueue.main` makes a new object
  /// for it, an allocation for each hop.
  @usableFromInline static let queue = DispatchQueue.main

  /// Whether this thread runs the main queue now, or is the main thread (see ``MainQueue`` for
  /// the rule).
  public static var isCurrent: Bool {
    // The main thread first: a thread-specific value, where `getSpecific` looks through the
    // queue's targets and boxes the value.
    isMainThread || DispatchQueue.getSpecific(key: key) != nil
  }

  /// Whether the calling thread is the process's main thread.
  static var isMainThread: Bool {
    #if os(Linux)
      // 1: not the main thread; 2: the main thread; none: not looked up yet on this thread.
      if let mark = pthread_getspecific(mainThreadMark) { return Int(bitPattern: mark) == 2 }
      let isMain = cindefinite_is_main_thread() != 0
      pthread_setspecific(mainThreadMark, UnsafeRawPointer(bitPattern: isMain ? 2 : 1))
      return isMain
    #elseif canImport(Darwin)
      return pthread_main_np() != 0
    #else
      return false
    #endif
  }

  #if os(Linux)
    /// Each thread's answer to ``isMainThread``, once looked up.
    private static let mainThreadMark: pthread_key_t = {
      var key = pthread_key_t()
      let status = pthread_key_create(&key, nil)
      precondition(status == 0, "MainQueue: pthread_key_create failed: \(status)")
      return key
    }()
  #endif
}
