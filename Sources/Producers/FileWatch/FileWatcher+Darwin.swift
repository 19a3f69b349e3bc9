#if canImport(Darwin)
  import Darwin
  import Dispatch
  import IndefiniteObservable
  import Multicast

  /// The system watch behind a ``FileWatch`` stream, on Apple platforms: kqueue, through
  /// Dispatch file-system sources on event-only descriptors (`O_EVTONLY`).
  ///
  /// A path watch has a source on the file and one on its parent directory: the file's says
  /// what happens to the file, the directory's says when the name may point at another file,
  /// which is then compared with the file being watched by its ``FileIdentity`` (device, inode
  /// and birth time).
  ///
  /// `@unchecked Sendable`, relying on one queue: `fileSource`, `directorySource` and
  /// `identity` are touched only on the serial queue `queue` (by the sources' handlers, and by
  /// `init` inside `queue.sync`), which every method that touches them checks with
  /// `dispatchPrecondition(condition: .onQueue(queue))`, as swift-nio's `NIOLoopBound` checks
  /// its event loop; `deinit` runs once no handler can reach `self` (they hold it weakly);
  /// `changes` is a `SendableEmitter`, and the other stored properties are immutable. A breach
  /// traps in `FileWatchTests`, which CI's macOS job runs.
  final class FileWatcher: @unchecked Sendable {
    /// Where the watch's changes fan out to the stream's subscriptions.
    let changes = FileWatch.makeFanOut()
    private let queue: DispatchQueue
    private let path: String
    private var fileSource: DispatchSourceFileSystemObject?
    private var directorySource: DispatchSourceFileSystemObject?
    private var identity: FileIdentity?

    /// Watches `path`: the file there, and its name in its parent directory; with no file
    /// there, the name alone when `ifMissing` says to wait for it.
    init(path: String, ifMissing: FileWatch.IfMissing, queue: DispatchQueue) throws(FileWatchError)
    {
      self.path = path
      self.queue = DispatchQueue(label: "IndefiniteObservable.FileWatch", target: queue)
      let directoryFD = open(Self.directory(of: path), O_EVTONLY | O_CLOEXEC)
      guard directoryFD >= 0 else { throw Self.error(path, Errno(System.errno)) }
      let fileFD = open(path, O_EVTONLY | O_CLOEXEC)
      if fileFD < 0 {
        let errno = Errno(System.errno)
        let waits =
          ifMissing == .waitForIt && (errno.rawValue == ENOENT || errno.rawValue == ENOTDIR)
        guard waits else {
          close(directoryFD)
          throw Self.error(path, errno)
        }
      }
      self.queue.sync {
        if fileFD >= 0 { watchFile(fileFD) }
        let source = DispatchSource.makeFileSystemObjectSource(
          fileDescriptor: directoryFD, eventMask: [.write], queue: self.queue)
        source.setEventHandler { [weak self] in self?.directoryChanged() }
        source.setCancelHandler { close(directoryFD) }
        source.activate()
        directorySource = source
      }
    }

    /// Watches the file open as `fd`, through a duplicate of it that the watch owns.
    init(descriptor: Int32, queue: DispatchQueue) throws(FileWatchError) {
      path = ""
      self.queue = DispatchQueue(label: "IndefiniteObservable.FileWatch", target: queue)
      let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
      guard duplicate >= 0 else { throw .watchFailed(Errno(System.errno)) }
      self.queue.sync { watchFile(duplicate) }
    }

    deinit {
      fileSource?.cancel()
      directorySource?.cancel()
    }

    /// Starts a source on `fd`, which it owns and closes on cancel.
    private func watchFile(_ fd: Int32) {
      dispatchPrecondition(condition: .onQueue(queue))
      identity = try? FileIdentity(descriptor: fd)
      let source = DispatchSource.makeFileSystemObjectSource(
        fileDescriptor: fd, eventMask: [.write, .extend, .attrib, .link, .rename, .delete],
        queue: queue)
      source.setEventHandler { [unowned(unsafe) source, weak self] in
        self?.fileChanged(source.data)
      }
      source.setCancelHandler { close(fd) }
      source.activate()
      fileSource = source
    }

    private func unwatchFile() {
      dispatchPrecondition(condition: .onQueue(queue))
      fileSource?.cancel()
      fileSource = nil
      identity = nil
    }

    private func fileChanged(_ events: DispatchSource.FileSystemEvent) {
      dispatchPrecondition(condition: .onQueue(queue))
      if !events.isDisjoint(with: [.write, .extend]) { changes.send(.modified) }
      if !events.isDisjoint(with: [.attrib, .link]) { changes.send(.attributes) }
      if events.contains(.rename) {
        changes.send(.renamed(to: nil))
        if !path.isEmpty { unwatchFile() }
      }
      if events.contains(.delete) {
        changes.send(.deleted)
        if !path.isEmpty { unwatchFile() }
      }
    }

    /// The directory changed: the name may now point at another file, or at none.
    private func directoryChanged() {
      dispatchPrecondition(condition: .onQueue(queue))
      guard let atPath = try? FileIdentity(path: path) else {
        if identity != nil {
          changes.send(.deleted)
          unwatchFile()
        }
        return
      }
      guard !atPath.matches(identity) else { return }
      let replacing = identity != nil
      unwatchFile()
      let fd = open(path, O_EVTONLY | O_CLOEXEC)
      guard fd >= 0 else { return }
      watchFile(fd)
      changes.send(replacing ? .replaced : .created)
    }

    private static func directory(of path: String) -> String {
      guard let slash = path.lastIndex(of: "/") else { return "." }
      return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func error(_ path: String, _ errno: Errno) -> FileWatchError {
      errno.rawValue == ENOENT || errno.rawValue == ENOTDIR
        ? .notFound(path) : .notAccessible(path, errno)
    }
  }
#endif
