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
  /// inotify instance (see ``Inotify``), whose events are translated on the watch's own serial
  /// queue and fan out to the stream's subscriptions through a `SharedEmitter`.
  ///
  /// Everything is released synchronously when the watcher is: its subscription to the
  /// instance's events, its inotify watches, and (for a descriptor watch) its duplicate of the
  /// caller's descriptor. So watches can be made and dropped back to back without limit.
  final class FileWatcher: Sendable {
    /// Where the watch's changes fan out to the stream's subscriptions.
    let changes = FileWatch.makeFanOut()
    private let events: Subscription
    private let translator: any InotifyTranslator

    /// Watches `path`: the file there, and its name in its parent directory.
    init(path: String, queue: DispatchQueue) throws(FileWatchError) {
      switch System.status(path: path) {
      case .success: break
      case .failure(let errno) where errno.rawValue == ENOENT || errno.rawValue == ENOTDIR:
        throw .notFound(path)
      case .failure(let errno): throw .notAccessible(path, errno)
      }
      let inotify = try Inotify.shared()
      let (directory, name) = Self.split(path)
      let directoryWatch: Int32
      switch inotify.add(directory, mask: Self.directoryMask | UInt32(IN_ONLYDIR)) {
      case .success(let watch): directoryWatch = watch
      case .failure(let errno):
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      let fileWatch: Int32
      switch inotify.add(path, mask: Self.fileMask) {
      case .success(let watch): fileWatch = watch
      case .failure(let errno):
        inotify.remove(directoryWatch)
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      let translator = PathTranslator(
        inotify: inotify, path: path, name: name, fileWatch: fileWatch,
        directoryWatch: directoryWatch)
      self.translator = translator
      events = Self.translate(inotify, with: translator, to: changes, on: queue)
    }

    /// Watches the file open as `fd`, through its `/proc/self/fd` link, and keeps a duplicate
    /// of `fd` of its own, so that a number the caller closes and the system reuses is never
    /// taken for the watched file.
    init(descriptor: Int32, queue: DispatchQueue) throws(FileWatchError) {
      let inotify = try Inotify.shared()
      let duplicate: Int32
      switch System.duplicate(descriptor) {
      case .success(let made): duplicate = made
      case .failure(let errno): throw .descriptor(.duplicateFailed(descriptor, errno))
      }
      let watch: Int32
      switch inotify.add("/proc/self/fd/\(duplicate)", mask: Self.descriptorMask) {
      case .success(let made): watch = made
      case .failure(let errno):
        System.close(duplicate)
        throw .watchFailed(errno)
      }
      let translator = DescriptorTranslator(inotify: inotify, duplicate: duplicate, watch: watch)
      self.translator = translator
      events = Self.translate(inotify, with: translator, to: changes, on: queue)
    }

    deinit {
      events.unsubscribe()
      translator.close()
    }

    private static let fileMask = UInt32(IN_MODIFY | IN_ATTRIB)
    private static let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
    private static let descriptorMask = UInt32(
      IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

    /// Subscribes `translator` to the instance's events on a serial queue of the watch's own,
    /// targeting `queue`, and sends the changes it finds to `changes` there.
    private static func translate(
      _ inotify: Inotify,
      with translator: any InotifyTranslator,
      to changes: SharedEmitter<FileChange>,
      on queue: DispatchQueue
    ) -> Subscription {
      let delivery = DispatchQueue(label: "IndefiniteObservable.FileWatch.delivery", target: queue)
      return inotify.events.subscribe(on: delivery) { events in
        for change in translator.changes(events) { changes.send(change) }
      }
    }

    /// The parent directory and the last component of `path`.
    private static func split(_ path: String) -> (directory: String, name: String) {
      let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
      guard let slash = trimmed.lastIndex(of: "/") else { return (".", trimmed) }
      let directory = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
      return (directory, String(trimmed[trimmed.index(after: slash)...]))
    }
  }

  /// The process's one inotify instance, shared by every file watch.
  ///
  /// Made by the first watch and kept for the life of the process (one descriptor), like the
  /// signal self-pipe: a watch adds its inotify watches to it and removes them when it goes,
  /// synchronously, so no watch ever waits for a descriptor to be closed on a queue, and the
  /// system's per-user limit on instances (128 by default) is never in play. The kernel gives two
  /// watches of one file the same watch descriptor, so watch descriptors are reference-counted.
  /// Events fan out to the watches through ``events``; each watch picks out its own.
  final class Inotify: Sendable {
    /// The events of every watch, as read: one batch per read, in order.
    let events: SharedEmitter<[InotifyEvent]>
    private let fd: Int32
    private let channel: ProcessChannel
    // How many watches use each watch descriptor of the instance.
    private let users = LockedState<[Int32: Int]>([:])

    private static let instance = LockedState<Inotify?>(nil)

    /// The instance, made on first use; a failure is thrown and tried again on the next call.
    static func shared() throws(FileWatchError) -> Inotify {
      try instance.withLock { (instance) throws(FileWatchError) -> Inotify in
        if let instance { return instance }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .watchFailed(Errno(System.errno)) }
        let made = Inotify(fd: fd)
        instance = made
        return made
      }
    }

    private init(fd: Int32) {
      self.fd = fd
      let events = SharedEmitter<[InotifyEvent]>(keepsLastValue: false)
      events.maxSubscribers = .max
      self.events = events
      channel = ProcessChannel(fd: fd, label: "IndefiniteObservable.FileWatch") { bytes in
        events.send(InotifyEvent.parse(bytes))
      }
    }

    /// Adds `mask` to the watch of the file at `path` (following symbolic links); the watch
    /// descriptor, to be given back with ``remove(_:)``.
    func add(_ path: String, mask: UInt32) -> Result<Int32, Errno> {
      users.withLock { users in
        let watch = inotify_add_watch(fd, path, mask | UInt32(IN_MASK_ADD))
        guard watch >= 0 else { return .failure(Errno(System.errno)) }
        users[watch, default: 0] += 1
        return .success(watch)
      }
    }

    /// Gives back a watch descriptor returned by ``add(_:mask:)``; the last user removes it.
    ///
    /// Each user gives it back once, also when the kernel removed the watch by itself
    /// (`IN_IGNORED`: the file was deleted); removing it again then fails harmlessly, and the
    /// kernel never reuses the number for another watch soon (it allocates them cyclically).
    func remove(_ watch: Int32) {
      users.withLock { users in
        guard let count = users[watch] else { return }  // not a watch of ours
        if count > 1 {
          users[watch] = count - 1
        } else {
          users[watch] = nil
          _ = inotify_rm_watch(fd, watch)
        }
      }
    }
  }

  /// One event read from an inotify descriptor.
  struct InotifyEvent: Sendable {
    var watch: Int32
    var mask: UInt32
    var name: String

    /// The events of one read (inotify returns whole events only).
    static func parse(_ raw: UnsafeRawBufferPointer) -> [InotifyEvent] {
      var events: [InotifyEvent] = []
      var offset = 0
      while offset + 16 <= raw.count {
        let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
        let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        let nameBytes = raw[(offset + 16)..<min(raw.count, offset + 16 + length)]
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        events.append(InotifyEvent(watch: watch, mask: mask, name: name))
        offset += 16 + length
      }
      return events
    }
  }

  /// Turns the events of one watch into changes, on the watch's serial queue, and gives its
  /// watch descriptors back when the watch goes.
  protocol InotifyTranslator: Sendable {
    /// The changes that `events` (of every watch in the process) mean for this watch.
    func changes(_ events: [InotifyEvent]) -> [FileChange]
    /// Gives back the watch descriptors; after it returns, no new one is taken. Idempotent.
    func close()
  }

  /// Turns the events of a path watch into changes, and moves the file watch to whatever file
  /// appears at the path.
  private final class PathTranslator: InotifyTranslator {
    private struct Watches {
      var file: Int32
      var isClosed = false
    }

    private let inotify: Inotify
    private let path: String
    private let name: String
    private let directoryWatch: Int32
    // The file's watch changes on the watch's queue and is given back by `close` from any
    // thread, so it lives in a mutex with whether the watch has been closed.
    private let watches: LockedState<Watches>

    init(inotify: Inotify, path: String, name: String, fileWatch: Int32, directoryWatch: Int32) {
      self.inotify = inotify
      self.path = path
      self.name = name
      self.directoryWatch = directoryWatch
      self.watches = LockedState(Watches(file: fileWatch))
    }

    func changes(_ events: [InotifyEvent]) -> [FileChange] {
      var changes: [FileChange] = []
      for event in events {
        if event.watch == directoryWatch {
          guard event.name == name else { continue }
          if event.mask & UInt32(IN_CREATE) != 0 {
            changes.append(.created)
            watchFile()
          } else if event.mask & UInt32(IN_MOVED_TO) != 0 {
            changes.append(fileWatch >= 0 ? .replaced : .created)
            watchFile()
          } else if event.mask & UInt32(IN_DELETE) != 0 {
            changes.append(.deleted)
            unwatchFile()
          } else if event.mask & UInt32(IN_MOVED_FROM) != 0 {
            changes.append(.renamed)
            unwatchFile()
          }
        } else if event.watch == fileWatch {
          if event.mask & UInt32(IN_MODIFY) != 0 { changes.append(.modified) }
          if event.mask & UInt32(IN_ATTRIB) != 0 { changes.append(.attributes) }
          if event.mask & UInt32(IN_IGNORED) != 0 { unwatchFile() }
        }
      }
      return changes
    }

    func close() {
      let file = watches.withLock { watches in
        defer {
          watches.file = -1
          watches.isClosed = true
        }
        return watches.isClosed ? -1 : watches.file
      }
      if file >= 0 { inotify.remove(file) }
      inotify.remove(directoryWatch)
    }

    private var fileWatch: Int32 {
      watches.withLock { $0.file }
    }

    /// Moves the file watch to the file now at the path.
    private func watchFile() {
      unwatchFile()
      watches.withLock { watches in
        guard !watches.isClosed, case .success(let watch) = inotify.add(path, mask: Self.mask)
        else { return }
        watches.file = watch
      }
    }

    private func unwatchFile() {
      let file = watches.withLock { watches in
        defer { watches.file = -1 }
        return watches.file
      }
      if file >= 0 { inotify.remove(file) }
    }

    private static let mask = UInt32(IN_MODIFY | IN_ATTRIB)
  }

  /// Turns the events of a descriptor watch into changes.
  private final class DescriptorTranslator: InotifyTranslator {
    private let inotify: Inotify
    // The watch's own duplicate of the caller's descriptor, closed by `close`.
    private let duplicate: Int32
    private let watch: Int32
    // Whether `.deleted` was reported (used on the watch's queue), and whether the watch was
    // closed (set from any thread).
    private let state = LockedState((deleted: false, isClosed: false))

    init(inotify: Inotify, duplicate: Int32, watch: Int32) {
      self.inotify = inotify
      self.duplicate = duplicate
      self.watch = watch
    }

    func changes(_ events: [InotifyEvent]) -> [FileChange] {
      var changes: [FileChange] = []
      for event in events where event.watch == watch {
        if event.mask & UInt32(IN_MODIFY) != 0 { changes.append(.modified) }
        if event.mask & UInt32(IN_ATTRIB) != 0 {
          changes.append(.attributes)
          if linkCount() == 0 { markDeleted(&changes) }
        }
        if event.mask & UInt32(IN_MOVE_SELF) != 0 { changes.append(.renamed) }
        if event.mask & UInt32(IN_DELETE_SELF) != 0 { markDeleted(&changes) }
      }
      return changes
    }

    func close() {
      let closes = state.withLock { state in
        defer { state.isClosed = true }
        return !state.isClosed
      }
      guard closes else { return }
      inotify.remove(watch)
      System.close(duplicate)
    }

    /// The watched file's number of links, read through the duplicate; nil once closed.
    private func linkCount() -> Int? {
      state.withLock { state in
        guard !state.isClosed, case .success(let info) = System.status(duplicate) else {
          return nil
        }
        return Int(info.st_nlink)
      }
    }

    private func markDeleted(_ changes: inout [FileChange]) {
      let first = state.withLock { state in
        defer { state.deleted = true }
        return !state.deleted
      }
      if first { changes.append(.deleted) }
    }
  }
#endif
