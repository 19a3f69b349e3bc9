import Dispatch
import IndefiniteObservable
import Multicast

/// Streams of changes to a file: at a path, or of an open descriptor. inotify on Linux, kqueue
/// on Apple platforms.
///
/// ```swift
/// let changes = try FileWatch.changes(at: "/var/log/app.log")
/// let subscription = changes.subscribe { change in
///   if change == .replaced { print("log rotated") }
/// }
/// ```
///
/// - The watch is made when the stream is made, so every failure is a thrown
///   ``FileWatchError``: a missing path, a path that cannot be read, a bad descriptor, or a
///   system out of watches. The stream's subscriptions share that one watch, and each receives
///   every change seen while it is subscribed, in the order the system reported them.
/// - Threading: a stream is made on an actor (the main actor in top-level code and in
///   `@MainActor` types), and changes are delivered on that actor, one at a time, in order; the
///   system's events are read and translated one at a time where they are read (on Linux, by
///   the package's poller thread, in the turn of the process's inotify instance; on Apple
///   platforms, on a private serial queue), from which each change hops once to the actor (not
///   at all when that thread runs the actor: the main thread under `MainLoop.run()`). Code that
///   is not isolated to an actor cannot make a stream. The stream is not
///   `Sendable`: subscribe and unsubscribe on that actor; once `unsubscribe()` returns, that
///   subscription receives nothing more.
/// - On the reading thread: ``changes(at:ifMissing:on:_:)`` and ``changes(of:on:_:)`` with
///   `.sendingThread` subscribe a `@Sendable` closure, from any isolation, that runs where the
///   events are read, with no thread switch by the package; each makes a watch of its own.
/// - Lifetime: the watch (its descriptor and its system watches) lives as long as the stream or
///   any of its subscriptions, and is released when the last of them is gone.
/// - Lost events: on Linux, when the system's queue of events overflows (a process that reads
///   them too slowly: `max_queued_events`, 16,384 by default), it drops events. Every watch then
///   looks again: a path watch reports ``FileChange/modified`` when the same file is at the
///   path, ``FileChange/replaced`` (or ``FileChange/created``) when another is, and
///   ``FileChange/deleted`` when none is (a rename cannot be told any more); a descriptor watch
///   reports ``FileChange/modified``, and ``FileChange/deleted`` once the file has no link. So
///   no change is missed, though one may be reported that did not happen.
public enum FileWatch {
  /// A stream of the changes at `path`: to the file there (``FileChange/modified``,
  /// ``FileChange/attributes``) and to the name itself (``FileChange/created``,
  /// ``FileChange/deleted``, ``FileChange/renamed``, ``FileChange/replaced``).
  ///
  /// The path is watched, not just the file: after the file is deleted or renamed the stream
  /// waits for the path to appear again, and after a new file appears there (created or moved
  /// over it) the stream watches that one. Symbolic links are followed when the stream is made.
  ///
  /// On Linux this holds when the file's directory goes too: removed, or renamed away, and made
  /// again later. While no file is at the path, the stream checks four times a second that the
  /// directory at the path is the one it watches, and watches the new one once there is one (the
  /// system's own report of a removed directory waits until no descriptor is open on a file of
  /// it). On Apple platforms the directory must stay: a stream whose directory is removed
  /// reports nothing more.
  ///
  /// - Throws: ``FileWatchError/notFound(_:)`` when nothing exists at `path` (with
  ///   ``IfMissing/waitForIt``, only when its directory does not exist),
  ///   ``FileWatchError/notAccessible(_:_:)`` when it cannot be read, and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give.
  /// - Parameters:
  ///   - path: The path to watch.
  ///   - ifMissing: What to do when no file is at `path` now: throw
  ///     ``FileWatchError/notFound(_:)`` (the default), or ``IfMissing/waitForIt``, watch the
  ///     name in its directory and report ``FileChange/created`` when a file appears there, as
  ///     `tail -F` waits for a log that is not there yet. Its directory must exist either way.
  ///   - isolation: The actor changes are delivered on: the caller's, which the compiler passes.
  public static func changes(
    at path: String, ifMissing: IfMissing = .throwNotFound,
    isolation: isolated any Actor = #isolation
  ) throws(FileWatchError) -> ValueObservable<FileChange> {
    let watch = connection(
      to: try FileWatcher(path: path, ifMissing: ifMissing, queue: privateQueue()))
    return GatedConnection.stream(isolation: isolation, watch)
  }

  /// A stream of the changes to the file open as `fd`, wherever it is moved and even after it
  /// was deleted: ``FileChange/modified``, ``FileChange/attributes``, ``FileChange/renamed``
  /// and ``FileChange/deleted``.
  ///
  /// The descriptor is only watched, never closed or read; keep it open while subscribed.
  ///
  /// - Throws: ``FileWatchError/descriptor(_:)`` for a negative or closed descriptor and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give.
  /// - Parameters:
  ///   - fd: The open descriptor of the file to watch.
  ///   - isolation: The actor changes are delivered on: the caller's, which the compiler passes.
  public static func changes(
    of fd: Int32, isolation: isolated any Actor = #isolation
  ) throws(FileWatchError) -> ValueObservable<FileChange> {
    guard fd >= 0 else { throw .descriptor(.negative(fd)) }
    guard System.isOpen(fd) else { throw .descriptor(.notOpen(fd)) }
    let watch = connection(to: try FileWatcher(descriptor: fd, queue: privateQueue()))
    return GatedConnection.stream(isolation: isolation, watch)
  }

  /// Subscribes `next` to the changes at `path`, to run on the thread that reads them from the
  /// system: no thread switch by the package (see ``changes(at:ifMissing:isolation:)`` for what is watched
  /// and the changes reported).
  ///
  /// ```swift
  /// let rotations = LockedState(0)
  /// let watching = try FileWatch.changes(at: "/var/log/app.log", on: .sendingThread) { change in
  ///   if change == .replaced { rotations.withLock { $0 += 1 } }
  /// }
  /// ```
  ///
  /// The spelling and the contract of `subscribe(on: .sendingThread)` on a `SendableEmitter`,
  /// for a producer that needs no actor (a server, a command-line tool), or that hands each
  /// change to something that reads on the thread it is called on (a `refillInline` emitter of
  /// ``FileDescriptors``):
  ///
  /// - Threading: callable from any isolation. `next` is `@Sendable` and runs on the thread that
  ///   read the system's events (on Linux, the package's poller thread, in the turn of the
  ///   process's inotify instance; on Apple platforms, the watch's file-system sources' queue),
  ///   one change at a time, in the order the system reported them, never two at once. Keep it
  ///   short: it holds up the changes of every watch behind it (on Linux, and the descriptor
  ///   streams that the poller serves).
  /// - Lifetime: the watch is made now, for this subscription alone, and lives until
  ///   `unsubscribe()`, which releases it (its system watches and descriptors) before it
  ///   returns, from any thread, `next` included; no call of `next` begins after it returns.
  ///   Dropping the subscription does not unsubscribe: the watch then lives as long as the
  ///   process.
  ///
  /// - Throws: As ``changes(at:ifMissing:isolation:)``; nothing is watched then.
  /// - Parameters:
  ///   - path: The path to watch.
  ///   - ifMissing: What to do when no file is at `path` now (see
  ///     ``changes(at:ifMissing:isolation:)``).
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each change, on the thread that read it.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func changes(
    at path: String, ifMissing: IfMissing = .throwNotFound, on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (FileChange) -> Void
  ) throws(FileWatchError) -> SendableSubscription {
    let watch = connection(
      to: try FileWatcher(path: path, ifMissing: ifMissing, queue: privateQueue()))
    return GatedConnection.subscription(ObserverGate(next), watch)
  }

  /// Subscribes `next` to the changes to the file open as `fd`, to run on the thread that reads
  /// them from the system (see ``changes(of:isolation:)`` for what is watched, and
  /// ``changes(at:ifMissing:on:_:)`` for the threading and the lifetime).
  ///
  /// The descriptor is only watched, never closed or read; keep it open while subscribed.
  ///
  /// - Throws: As ``changes(of:isolation:)``; nothing is watched then.
  /// - Parameters:
  ///   - fd: The open descriptor of the file to watch.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each change, on the thread that read it.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func changes(
    of fd: Int32, on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (FileChange) -> Void
  ) throws(FileWatchError) -> SendableSubscription {
    guard fd >= 0 else { throw .descriptor(.negative(fd)) }
    guard System.isOpen(fd) else { throw .descriptor(.notOpen(fd)) }
    let watch = connection(to: try FileWatcher(descriptor: fd, queue: privateQueue()))
    return GatedConnection.subscription(ObserverGate(next), watch)
  }

  private static func privateQueue() -> DispatchQueue {
    DispatchQueue(label: "IndefiniteObservable.FileWatch")
  }

  /// The emitter through which a watch's changes fan out to its subscriptions, sent one at a
  /// time where the watch reads its events; a watch may have any number of subscribers. It keeps no last value.
  static func makeFanOut() -> SendableEmitter<FileChange> {
    let changes = SendableEmitter<FileChange>(keepsLastValue: false)
    changes.maxSubscribers = .max
    return changes
  }

  /// The core of both forms: what connects one subscriber's gate to `watcher`'s changes, sent
  /// on the thread that read them; each connection keeps the watch alive until it ends.
  private static func connection(
    to watcher: FileWatcher
  ) -> (ObserverGate<FileChange>) -> @Sendable () -> Void {
    { gate in
      let subscription = watcher.changes.subscribe(on: .sendingThread, replayingLast: false) {
        // On the main thread (`MainLoop.run()`), a main-actor gate delivers at once.
        gate.sendFromCurrentThread($0)
      }
      return {
        subscription.unsubscribe()
        withExtendedLifetime(watcher) {}
      }
    }
  }
}
