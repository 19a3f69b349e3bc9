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
    private let receiver: InotifyReceiver

    /// Watches `path`: the file there, and its name in its parent directory; with no file
    /// there, the name alone when `ifMissing` says to wait for it. (`queue` is the Apple
    /// platforms' watch queue; here the work runs in the inotify instance's turn.)
    init(
      path: String, ifMissing: FileWatch.IfMissing, queue _: DispatchQueue
    ) throws(FileWatchError) {
      var isMissing = false
      switch System.status(path: path) {
      case .success: break
      case .failure(let errno) where errno.rawValue == ENOENT || errno.rawValue == ENOTDIR:
        guard ifMissing == .waitForIt else { throw .notFound(path) }
        isMissing = true
      case .failure(let errno): throw .notAccessible(path, errno)
      }
      let inotify = try Inotify.shared()
      let (directory, name) = Self.split(path)
      let receiver = InotifyReceiver()
      let directoryWatch: Int32
      switch inotify.add(directory, mask: Self.directoryMask, for: receiver) {
      case .success(let watch): directoryWatch = watch
      case .failure(let errno):
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      var fileWatch: Int32 = -1
      switch isMissing ? nil : inotify.add(path, mask: Self.fileMask, for: receiver) {
      case nil: break
      case .success(let watch): fileWatch = watch
      case .failure(let errno) where errno.rawValue == ENOENT && ifMissing == .waitForIt: break
      case .failure(let errno):
        inotify.remove(directoryWatch, for: receiver)
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      let translator = PathTranslator(
        inotify: inotify, receiver: receiver, path: path, directory: directory, name: name,
        fileWatch: fileWatch, directoryWatch: directoryWatch,
        send: { [changes] in changes.send($0) })
      self.translator = translator
      self.receiver = receiver
      receiver.start(translator, sendingTo: changes)
    }

    /// Watches the file open as `fd`, through its `/proc/self/fd` link, and keeps a duplicate
    /// of `fd` of its own, so that a number the caller closes and the system reuses is never
    /// taken for the watched file.
    init(descriptor: Int32, queue _: DispatchQueue) throws(FileWatchError) {
      let inotify = try Inotify.shared()
      let receiver = InotifyReceiver()
      let duplicate: Int32
      switch System.duplicate(descriptor) {
      case .success(let made): duplicate = made
      case .failure(let errno): throw .descriptor(.duplicateFailed(descriptor, errno))
      }
      let watch: Int32
      switch inotify.add("/proc/self/fd/\(duplicate)", mask: Self.descriptorMask, for: receiver) {
      case .success(let made): watch = made
      case .failure(let errno):
        System.close(duplicate)
        throw .watchFailed(errno)
      }
      let translator = DescriptorTranslator(
        inotify: inotify, receiver: receiver, duplicate: duplicate, watch: watch)
      self.translator = translator
      self.receiver = receiver
      receiver.start(translator, sendingTo: changes)
    }

    deinit {
      // Gives the watch descriptors back (no event is routed here after it), then lets go of
      // the translator, which holds the receiver.
      translator.close()
      receiver.stop()
    }

    private static let fileMask = UInt32(IN_MODIFY | IN_ATTRIB)
    // With IN_DELETE_SELF and IN_MOVE_SELF: the directory removed, or renamed away, no longer
    // holds the path. (The IN_IGNORED that ends the watch of a removed directory comes only once
    // nothing holds the directory: a descriptor still open on a file of it delays it.)
    static let directoryMask = UInt32(
      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
        | IN_ONLYDIR)
    private static let descriptorMask = UInt32(
      IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

    /// The parent directory and the last component of `path`.
    private static func split(_ path: String) -> (directory: String, name: String) {
      let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
      guard let slash = trimmed.lastIndex(of: "/") else { return (".", trimmed) }
      let directory = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
      return (directory, String(trimmed[trimmed.index(after: slash)...]))
    }
  }
#endif
