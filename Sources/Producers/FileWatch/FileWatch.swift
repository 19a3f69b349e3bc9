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
///   system's events are read and translated on a private serial queue (on Linux, the one
///   queue that reads the process's inotify instance), from which each change hops once to the
///   actor. Code that is not
///   isolated to an actor cannot make a stream. The stream is not `Sendable`: subscribe and
///   unsubscribe on that actor; once `unsubscribe()` returns, that subscription receives
///   nothing more.
/// - Lifetime: the watch (its descriptor and its system watches) lives as long as the stream or
///   any of its subscriptions, and is released when the last of them is gone.
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
  /// - Throws: ``FileWatchError/notFound(_:)`` when nothing exists at `path`,
  ///   ``FileWatchError/notAccessible(_:_:)`` when it cannot be read, and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give.
  /// - Parameters:
  ///   - path: The path to watch.
  ///   - isolation: The actor changes are delivered on: the caller's, which the compiler passes.
  public static func changes(
    at path: String, isolation: isolated any Actor = #isolation
  ) throws(FileWatchError) -> ValueObservable<FileChange> {
    try stream(FileWatcher(path: path, queue: privateQueue()), isolation: isolation)
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
    return try stream(FileWatcher(descriptor: fd, queue: privateQueue()), isolation: isolation)
  }

  private static func privateQueue() -> DispatchQueue {
    DispatchQueue(label: "IndefiniteObservable.FileWatch")
  }

  /// The emitter through which a watch's changes fan out to its subscriptions, sent on the
  /// watch's serial queue; a watch may have any number of subscribers. It keeps no last value.
  static func makeFanOut() -> SendableEmitter<FileChange> {
    let changes = SendableEmitter<FileChange>(keepsLastValue: false)
    changes.maxSubscribers = .max
    return changes
  }

  /// The stream of a watch: each subscription is a subscription to the watch's emitter, bound
  /// to `isolation`, and keeps the watch alive until it ends.
  private static func stream(
    _ watcher: FileWatcher, isolation: isolated any Actor
  ) -> ValueObservable<FileChange> {
    ValueObservable { observer in
      let subscription = watcher.changes.subscribe(isolation: isolation, observer.next)
      return {
        subscription.unsubscribe()
        withExtendedLifetime(watcher) {}
      }
    }
  }
}
