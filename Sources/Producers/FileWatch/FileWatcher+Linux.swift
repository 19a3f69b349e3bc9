#if os(Linux) || os(Android)
  import Dispatch
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The system watch behind a ``FileWatch`` stream, on Linux: watches in the process's one
  /// inotify instance (see ``Inotify``), whose events for them (and only those) are translated
  /// on the thread that read them, in the instance's turn, and fan out to the stream's subscriptions through a
  /// `SendableEmitter`: one thread switch, from that queue to each subscriber's actor.
  ///
  /// Everything is released synchronously when the watcher is: its inotify watches, with their
  /// routes to it, and (for a descriptor watch) its duplicate of the caller's descriptor. So
  /// watches can be made and dropped back to back without limit.
  final class FileWatcher: Sendable {
    /// Where the watch's changes fan out to the stream's subscriptions.
    let changes = FileWatch.makeFanOut()
    private let translator: any InotifyTranslator

    /// Watches `path`: the file there, and its name in its parent directory; with no file
    /// there, the name alone when `ifMissing` says to wait for it. (`queue` is the Apple
    /// platforms' watch queue; here the work runs in the inotify instance's turn.)
    init(
      path: String, ifMissing: FileWatch.IfMissing, queue _: DispatchQueue
    ) throws(FileWatchError) {
      let (directory, name) = Self.split(path)
      translator = try PathTranslator(
        inotify: try Inotify.shared(), path: path, directory: directory, name: name,
        ifMissing: ifMissing, send: { [changes] in changes.send($0) })
    }

    /// Watches the file open as `fd` (see ``DescriptorTranslator``).
    init(descriptor: Int32, queue _: DispatchQueue) throws(FileWatchError) {
      translator = try DescriptorTranslator(
        inotify: try Inotify.shared(), descriptor: descriptor,
        send: { [changes] in changes.send($0) })
    }

    deinit {
      // Gives the watch descriptors back: no event is routed to the translator after it.
      translator.close()
    }

    // With IN_DELETE_SELF and IN_MOVE_SELF: the directory removed, or renamed away, no longer
    // holds the path. (The IN_IGNORED that ends the watch of a removed directory comes only once
    // nothing holds the directory: a descriptor still open on a file of it delays it.)
    static let directoryMask = UInt32(
      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
        | IN_ONLYDIR)
    /// The parent directory and the last component of `path`.
    private static func split(_ path: String) -> (directory: String, name: String) {
      let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
      guard let slash = trimmed.lastIndex(of: "/") else { return (".", trimmed) }
      let directory = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
      return (directory, String(trimmed[trimmed.index(after: slash)...]))
    }
  }
#endif
