import Dispatch

#if canImport(Darwin)
  import Darwin
#endif

/// The main thread's loop for a program whose subscribers run on the main actor: it runs the
/// main queue (so the main actor's work) and reads every descriptor the producers wait for, on
/// the main thread, in place of `dispatchMain()`.
///
/// ```swift
/// let changes = try FileWatch.changes(at: "/var/log/app.log")
/// let subscription = changes.subscribe { change in print(change) }  // on the main actor
/// try withExtendedLifetime(subscription) { try MainLoop.run() }
/// ```
///
/// With `dispatchMain()`, a file change, a descriptor's bytes or a signal is read on the
/// producers' poller thread and crosses to the main actor: one thread switch, a wake-up of
/// another thread, for each event. With `MainLoop.run()`, the main thread waits for the
/// descriptors and for the main queue's work in one `epoll_wait`, reads each event itself, and
/// main-actor subscribers get it in the same call, with no thread switch, as a program that
/// reads in a loop of its own does (`MainQueue.isCurrent` is true on the main thread).
/// Subscribers on other queues or actors get their events as before, with one switch.
///
/// - Threading: the main actor's work and the producers' reads share one thread: a main-actor
///   job that runs long delays the reads, and a read delays the main actor, as in any run loop.
///   `.sendingThread` subscribers of the producers run on the main thread.
/// - Signals: the main thread takes the process's signals while it waits, as in
///   `dispatchMain()`'s `sigsuspend`. If it blocks some when the loop begins (as a child of a
///   Dispatch thread does), each wait unblocks all of them while it lasts (`epoll_pwait`); its
///   mask is left as it was otherwise, and read only then.
/// - Lifetime: never returns. The poller's own thread ends when the main thread takes its waits
///   over; what it was waiting for is waited for on the main thread from then on.
/// - Platforms: Linux. On Apple platforms it calls `dispatchMain()`, and events are read on the
///   poller's thread as before.
public enum MainLoop {
  /// Runs the main queue and the producers' reads on the main thread, for the rest of the
  /// process; never returns. Call it once, from the main thread, where a program would call
  /// `dispatchMain()`.
  ///
  /// - Throws: ``MainLoopError/notMainThread`` when called from another thread (a main-queue
  ///   block after `dispatchMain()` included), and ``MainLoopError/alreadyRunning`` when called
  ///   from inside the loop; nothing has changed then.
  public static func run() throws(MainLoopError) -> Never {
    #if os(Linux)
      try DescriptorPoller.shared.runOnMainThread()
    #else
      guard pthread_main_np() != 0 else { throw .notMainThread }
      dispatchMain()
    #endif
  }
}

/// Why ``MainLoop/run()`` did not start.
public enum MainLoopError: Error, Hashable, Sendable, CustomStringConvertible {
  /// It was called from a thread other than the process's main thread.
  case notMainThread
  /// It was called from inside the loop (a main-queue block or a subscriber it runs).
  case alreadyRunning

  /// A sentence saying what was wrong.
  public var description: String {
    switch self {
    case .notMainThread: "MainLoop.run() must be called on the main thread"
    case .alreadyRunning: "MainLoop.run() is already running on the main thread"
    }
  }
}
