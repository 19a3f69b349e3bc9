import Dispatch

/// The main thread's loop for a program whose subscribers run on the main actor: it runs the
/// main queue (so the main actor) and reads every descriptor the producers wait for, on the
/// main thread, in place of `dispatchMain()`.
///
/// ```swift
/// let changes = try FileWatch.changes(of: "/var/log/app.log")
/// let subscription = changes.subscribe { @MainActor change in print(change) }
/// withExtendedLifetime(subscription) { MainLoop.run() }
/// ```
///
/// With `dispatchMain()`, a file change, a descriptor's bytes or a signal is read on the
/// producers' poller thread and crosses to the main actor: one thread switch, a wake-up of
/// another thread, for each event. With `MainLoop.run()`, the main thread waits for the
/// descriptors and for the main queue's work in one `epoll_wait`, reads each event itself, and
/// a main-actor subscriber gets it with no thread switch, as a program that reads in its own
/// loop does. Subscribers on other queues or actors get their events as before.
///
/// - Threading: the main actor's work and the producers' reads share one thread: a main-actor
///   job that runs long delays the reads, and a read delays the main actor, as in any run loop.
///   Producers' callbacks on the sending thread (`.sendingThread`) run on the main thread.
/// - Platforms: on Linux. Elsewhere it calls `dispatchMain()`, and events are read on the
///   poller's thread as before.
/// - Bad input: calling it from another thread than the main thread, or a second time, stops
///   the program with a message, as a second `dispatchMain()` would misbehave.
public enum MainLoop {
  /// Runs the main queue and the producers' reads on the main thread, for the rest of the
  /// process; never returns. Call it from the main thread, once, where a program would call
  /// `dispatchMain()`.
  public static func run() -> Never {
    #if os(Linux)
      DescriptorPoller.shared.runOnMainThread()
    #else
      dispatchMain()
    #endif
  }
}
