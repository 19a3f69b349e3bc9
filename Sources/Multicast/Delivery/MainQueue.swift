import Dispatch

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
/// - The rule: true exactly when `DispatchQueue.getSpecific` finds a key that was set on the main
///   queue, on every platform. It is not `Thread.isMainThread`: on Linux, once the main thread
///   has called `dispatchMain()`, a worker thread drains the main queue, so the main actor runs
///   on a thread that is not the main thread. The main thread inside another queue's `sync`
///   block reads false: code there that must reach the main actor hops, which is correct, only
///   later.
/// - Threading: callable from any thread; the first call sets the key on the main queue (once,
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

  /// Whether this thread runs the main queue now (see ``MainQueue`` for the rule).
  public static var isCurrent: Bool {
    DispatchQueue.getSpecific(key: key) != nil
  }
}
