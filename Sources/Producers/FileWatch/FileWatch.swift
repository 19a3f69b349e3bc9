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
/// - The watch is made when the producer is made, so every failure is a thrown
///   ``FileWatchError``: a missing path, a path that cannot be read, a bad descriptor, or a
///   system out of watches. The producer's subscriptions share that one watch, and each receives
///   every change seen while it is subscribed, in the order the system reported them.
/// - Threading: each factory returns a `Producer`, which any code may make and subscribe to. The
///   system's events are read and translated one at a time where they are read (on Linux, by
///   the package's poller thread, in the turn of the process's inotify instance; on Apple
///   platforms, on a private serial queue). `subscribe { ... }` and `stream()` run the
///   subscriber on the caller's actor, one change at a time, in order: each change hops once to
///   the actor (not at all when that thread runs the actor: the main thread under
///   `MainLoop.run()`). `subscribe(on: .sendingThread) { ... }` runs a `@Sendable` subscriber
///   where the events are read, with no thread switch, never two at once; keep it short there:
///   it holds up the changes of every watch behind it (on Linux, and the descriptor streams the
///   poller serves). It suits a subscriber that hands each change to something that reads on
///   the thread it is called on (the `refill` of a ``FileDescriptors`` stream). Once
///   `unsubscribe()` returns, from any thread, that subscription receives nothing more.
/// - Lifetime: the watch (its descriptor and its system watches) lives as long as the producer or
///   any of its subscriptions, and is released when the last of them is gone.
/// - Lost events: on Linux, when the system's queue of events overflows (a process that reads
///   them too slowly: `max_queued_events`, 16,384 by default), it drops events. Every watch then
///   looks again: a path watch reports ``FileChange/modified`` when the same file is at the
///   path, ``FileChange/replaced`` (or ``FileChange/created``) when another is, and
///   ``FileChange/deleted`` when none is (a rename cannot be told any more); a descriptor watch
///   reports ``FileChange/modified``, and ``FileChange/deleted`` once the file has no link. So
///   no change is missed, though one may be reported that did not happen.
public enum FileWatch {
  /// The changes at `path`: to the file there (``FileChange/modified``,
  /// ``FileChange/attributes``) and to the name itself (``FileChange/created``,
  /// ``FileChange/deleted``, ``FileChange/renamed(to:)``, ``FileChange/replaced``).
  ///
  /// The path is watched, not just the file: after the file is deleted or renamed the watch
  /// waits for the path to appear again, and after a new file appears there (created or moved
  /// over it) it watches that one. Symbolic links are followed when the producer is made.
  ///
  /// On Linux, a rename within the directory names the file's new path, and a file that
  /// arrived and left again before the watch read either event is reported by its departure
  /// alone, with where it went: it is not the file at the path any more (see
  /// ``FileChange/renamed(to:)``).
  ///
  /// On Linux this holds when the file's directory goes too: removed, or renamed away, and made
  /// again later. While no file is at the path, the watch checks four times a second that the
  /// directory at the path is the one it watches, and watches the new one once there is one (the
  /// system's own report of a removed directory waits until no descriptor is open on a file of
  /// it). On Apple platforms the directory must stay: a watch whose directory is removed
  /// reports nothing more.
  ///
  /// ```swift
  /// let rotations = LockedState(0)
  /// let watching = try FileWatch.changes(at: "/var/log/app.log").subscribe(on: .sendingThread) {
  ///   if $0 == .replaced { rotations.withLock { $0 += 1 } }
  /// }
  /// ```
  ///
  /// - Throws: ``FileWatchError/notFound(_:)`` when nothing exists at `path` (with
  ///   ``IfMissing/waitForIt``, only when its directory does not exist),
  ///   ``FileWatchError/notAccessible(_:_:)`` when it cannot be read, and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give; nothing is
  ///   watched then.
  /// - Parameters:
  ///   - path: The path to watch.
  ///   - ifMissing: What to do when no file is at `path` now: throw
  ///     ``FileWatchError/notFound(_:)`` (the default), or ``IfMissing/waitForIt``, watch the
  ///     name in its directory and report ``FileChange/created`` when a file appears there, as
  ///     `tail -F` waits for a log that is not there yet. Its directory must exist either way.
  public static func changes(
    at path: String, ifMissing: IfMissing = .throwNotFound
  ) throws(FileWatchError) -> Producer<FileChange> {
    connection(to: try FileWatcher(path: path, ifMissing: ifMissing, queue: privateQueue()))
  }

  /// The changes to the file open as `fd`, wherever it is moved and even after it was deleted:
  /// ``FileChange/modified``, ``FileChange/attributes``, ``FileChange/renamed(to:)`` (with no
  /// path: an open file has none to report) and ``FileChange/deleted``.
  ///
  /// The descriptor is only watched, never closed or read; keep it open while subscribed.
  ///
  /// - Throws: ``FileWatchError/descriptor(_:)`` for a negative or closed descriptor and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give.
  /// - Parameter fd: The open descriptor of the file to watch.
  public static func changes(of fd: Int32) throws(FileWatchError) -> Producer<FileChange> {
    guard fd >= 0 else { throw .descriptor(.negative(fd)) }
    guard System.isOpen(fd) else { throw .descriptor(.notOpen(fd)) }
    return connection(to: try FileWatcher(descriptor: fd, queue: privateQueue()))
  }

  private static func privateQueue() -> DispatchQueue {
    DispatchQueue(label: "IndefiniteObservable.FileWatch")
  }

  /// The emitter through which a watch's changes fan out to its subscriptions, sent one at a
  /// time where the watch reads its events; a watch may have any number of subscribers. It keeps no last value.
  static func makeFanOut() -> SendableEmitter<FileChange> {
    let changes = SendableEmitter<FileChange>(keepingLast: 0)
    changes.maxSubscribers = .max
    return changes
  }

  /// A producer of `watcher`'s changes: each subscription connects its gate to them, sent
  /// on the thread that read them; each connection keeps the watch alive until it ends.
  private static func connection(to watcher: FileWatcher) -> Producer<FileChange> {
    Producer { gate in
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
