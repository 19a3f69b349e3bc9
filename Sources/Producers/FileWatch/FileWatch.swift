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
/// - Threading: changes are delivered on `queue`, or on a private serial queue when nil; one at
///   a time, in order. Subscribe and unsubscribe from any thread; once `unsubscribe()` returns,
///   that subscription receives nothing more.
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
  /// - Throws: ``FileWatchError/notFound(_:)`` when nothing exists at `path`,
  ///   ``FileWatchError/notAccessible(_:_:)`` when it cannot be read, and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give.
  public static func changes(
    at path: String, on queue: DispatchQueue? = nil
  ) throws(FileWatchError) -> ValueObservable<FileChange> {
    try stream(FileWatcher(path: path, queue: queue ?? privateQueue()))
  }

  /// A stream of the changes to the file open as `fd`, wherever it is moved and even after it
  /// was deleted: ``FileChange/modified``, ``FileChange/attributes``, ``FileChange/renamed``
  /// and ``FileChange/deleted``.
  ///
  /// The descriptor is only watched, never closed or read; keep it open while subscribed.
  ///
  /// - Throws: ``FileWatchError/descriptor(_:)`` for a negative or closed descriptor and
  ///   ``FileWatchError/watchFailed(_:)`` when the system has no watch to give.
  public static func changes(
    of fd: Int32, on queue: DispatchQueue? = nil
  ) throws(FileWatchError) -> ValueObservable<FileChange> {
    guard fd >= 0 else { throw .descriptor(.negative(fd)) }
    guard System.isOpen(fd) else { throw .descriptor(.notOpen(fd)) }
    return try stream(FileWatcher(descriptor: fd, queue: queue ?? privateQueue()))
  }

  private static func privateQueue() -> DispatchQueue {
    DispatchQueue(label: "IndefiniteObservable.FileWatch")
  }

  /// The emitter through which a watch's changes fan out to its subscriptions, on the watch's
  /// serial queue; a watch may have any number of subscribers.
  static func makeFanOut() -> Emitter<FileChange> {
    let changes = Emitter<FileChange>()
    changes.maxSubscribers = .max
    return changes
  }

  /// The stream of a watch: each subscription is a subscription to the watch's emitter, and
  /// keeps the watch alive until it ends.
  private static func stream(_ watcher: FileWatcher) -> ValueObservable<FileChange> {
    ValueObservable { observer in
      let subscription = watcher.changes.subscribe(observer.next)
      return {
        subscription.unsubscribe()
        withExtendedLifetime(watcher) {}
      }
    }
  }
}
