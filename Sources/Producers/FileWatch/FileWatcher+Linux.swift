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
  /// on the watch's own serial queue and fan out to the stream's subscriptions through a
  /// `SharedEmitter`.
  ///
  /// Everything is released synchronously when the watcher is: its inotify watches, with their
  /// routes to it, and (for a descriptor watch) its duplicate of the caller's descriptor. So
  /// watches can be made and dropped back to back without limit.
  final class FileWatcher: Sendable {
    /// Where the watch's changes fan out to the stream's subscriptions.
    let changes = FileWatch.makeFanOut()
    private let translator: any InotifyTranslator
    private let receiver: InotifyReceiver

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
      let delivery = Self.deliveryQueue(targeting: queue)
      let receiver = InotifyReceiver(queue: delivery)
      let directoryWatch: Int32
      switch inotify.add(directory, mask: Self.directoryMask, for: receiver) {
      case .success(let watch): directoryWatch = watch
      case .failure(let errno):
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      let fileWatch: Int32
      switch inotify.add(path, mask: Self.fileMask, for: receiver) {
      case .success(let watch): fileWatch = watch
      case .failure(let errno):
        inotify.remove(directoryWatch, for: receiver)
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      let translator = PathTranslator(
        inotify: inotify, receiver: receiver, path: path, directory: directory, name: name,
        fileWatch: fileWatch, directoryWatch: directoryWatch, queue: delivery,
        send: { [changes] in changes.send($0) })
      self.translator = translator
      self.receiver = receiver
      receiver.start(translator, sendingTo: changes)
    }

    /// Watches the file open as `fd`, through its `/proc/self/fd` link, and keeps a duplicate
    /// of `fd` of its own, so that a number the caller closes and the system reuses is never
    /// taken for the watched file.
    init(descriptor: Int32, queue: DispatchQueue) throws(FileWatchError) {
      let inotify = try Inotify.shared()
      let receiver = InotifyReceiver(queue: Self.deliveryQueue(targeting: queue))
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
    fileprivate static let directoryMask = UInt32(
      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
        | IN_ONLYDIR)
    private static let descriptorMask = UInt32(
      IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

    /// The serial queue of a watch's own, targeting `queue`, on which its translator runs.
    private static func deliveryQueue(targeting queue: DispatchQueue) -> DispatchQueue {
      DispatchQueue(label: "IndefiniteObservable.FileWatch.delivery", target: queue)
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
  /// system's per-user limit on instances (128 by default) is never in play.
  ///
  /// Events are demultiplexed by watch descriptor: each watch descriptor has the receivers of
  /// the watches that added it, and a batch of events read goes, in one hop per receiver, only
  /// to the receivers of the descriptors it names. An event costs a dictionary lookup, however
  /// many watches the process has. The kernel gives two watches of one file the same watch
  /// descriptor, so a descriptor may have several receivers (and one receiver the same
  /// descriptor twice, for a moment, while a path watch moves to the file it already watches).
  final class Inotify: Sendable {
    private let fd: Int32
    private let channel: ProcessChannel
    /// The receivers of each watch descriptor of the instance, once per `add`.
    private let routes: LockedState<[Int32: [InotifyReceiver]]>

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
      let routes = LockedState<[Int32: [InotifyReceiver]]>([:])
      self.routes = routes
      channel = ProcessChannel(fd: fd, label: "IndefiniteObservable.FileWatch") { bytes in
        Self.route(InotifyEvent.parse(bytes), through: routes)
      }
    }

    /// Hands each receiver the events of `batch` for its watch descriptors, in order, with one
    /// hop each; events of descriptors with no receiver (given back already) are dropped.
    private static func route(
      _ batch: [InotifyEvent], through routes: LockedState<[Int32: [InotifyReceiver]]>
    ) {
      // The receivers are taken out under the lock and handed their events after it.
      let deliveries = routes.withLock { routes in
        var deliveries: [(receiver: InotifyReceiver, events: [InotifyEvent])] = []
        var indices: [ObjectIdentifier: Int] = [:]
        for event in batch {
          guard let receivers = routes[event.watch] else { continue }
          // A receiver that added the descriptor twice gets the event once.
          var seen: Set<ObjectIdentifier> = []
          for receiver in receivers
          where receivers.count == 1 || seen.insert(ObjectIdentifier(receiver)).inserted {
            if let index = indices[ObjectIdentifier(receiver)] {
              deliveries[index].events.append(event)
            } else {
              indices[ObjectIdentifier(receiver)] = deliveries.count
              deliveries.append((receiver, [event]))
            }
          }
        }
        return deliveries
      }
      for delivery in deliveries { delivery.receiver.receive(delivery.events) }
    }

    /// Adds `mask` to the watch of the file at `path` (following symbolic links), whose events
    /// go to `receiver` from now on; the watch descriptor, to be given back with
    /// ``remove(_:for:)``.
    func add(_ path: String, mask: UInt32, for receiver: InotifyReceiver) -> Result<Int32, Errno> {
      routes.withLock { routes in
        let watch = inotify_add_watch(fd, path, mask | UInt32(IN_MASK_ADD))
        guard watch >= 0 else { return .failure(Errno(System.errno)) }
        routes[watch, default: []].append(receiver)
        return .success(watch)
      }
    }

    /// Gives back a watch descriptor that ``add(_:mask:for:)`` returned for `receiver`; its
    /// events stop going there, and the last user removes the watch.
    ///
    /// Each user gives it back once, also when the kernel removed the watch by itself
    /// (`IN_IGNORED`: the file was deleted); removing it again then fails harmlessly, and the
    /// kernel never reuses the number for another watch soon (it allocates them cyclically).
    func remove(_ watch: Int32, for receiver: InotifyReceiver) {
      routes.withLock { routes in
        guard var receivers = routes[watch],
          let index = receivers.firstIndex(where: { $0 === receiver })
        else { return }  // not a watch of this receiver
        receivers.remove(at: index)
        if receivers.isEmpty {
          routes[watch] = nil
          _ = inotify_rm_watch(fd, watch)
        } else {
          routes[watch] = receivers
        }
      }
    }
  }

  /// Where the events of one watch's watch descriptors go: its translator, on its serial queue,
  /// and the changes found to its emitter.
  ///
  /// Made before the watch's first `add` (the instance routes to it from then on) and started
  /// once its translator exists; events routed before that, or after ``stop()``, are dropped,
  /// as they were when each watch subscribed to every event after its watches were added.
  final class InotifyReceiver: Sendable {
    private let queue: DispatchQueue
    private struct Target {
      var translator: (any InotifyTranslator)?
      var changes: SharedEmitter<FileChange>?
    }
    // Set once by `start`, read on the instance's queue.
    private let target = LockedState(Target())

    init(queue: DispatchQueue) {
      self.queue = queue
    }

    /// Sends the changes that `translator` finds in the events routed here to `changes`.
    func start(_ translator: any InotifyTranslator, sendingTo changes: SharedEmitter<FileChange>) {
      target.withLock { $0 = Target(translator: translator, changes: changes) }
    }

    /// Lets go of the translator and the emitter: nothing more is sent.
    func stop() {
      let old = target.withLock { target in
        defer { target = Target() }
        return target
      }
      withExtendedLifetime(old) {}
    }

    /// Translates `events` (all of this receiver's watch descriptors) on the watch's queue.
    func receive(_ events: [InotifyEvent]) {
      let target = self.target.withLock { $0 }
      guard let translator = target.translator, let changes = target.changes else { return }
      queue.async {
        for change in translator.changes(events) { changes.send(change) }
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
  ///
  /// While no file is at the path, the watch also checks every ``directoryCheckInterval`` that
  /// the directory at the path is still the one it watches: a directory removed or renamed away
  /// may hold no path any more long before the system says so (a descriptor still open on a file
  /// of a removed directory delays its events until it is closed). When the directory at the path
  /// is another, or none, the watch reports the end of a file it still watched, watches the
  /// directory there once there is one, and reports a file already at the path as created.
  private final class PathTranslator: InotifyTranslator {
    private struct Watches {
      var file: Int32
      var directory: Int32
      var isChecking = false
      var isClosed = false
    }

    /// What watching the file at the path found.
    private enum FileAtPath {
      /// None: the name is gone again.
      case none
      /// The file watched already.
      case same
      /// Another file, now watched.
      case other
    }

    /// What one check of the directory found.
    private enum DirectoryCheck {
      /// Nothing to check: a file is watched, or the watch is closed.
      case done
      /// The directory watched; its watch was taken once more by the check.
      case same(Int32)
      /// Another directory, now watched, or none; the old watch, to give back.
      case other(old: Int32, isWatched: Bool)
    }

    private let inotify: Inotify
    private let receiver: InotifyReceiver
    private let path: String
    private let directory: String
    private let name: String
    private let queue: DispatchQueue
    private let send: @Sendable (FileChange) -> Void
    // The watches change on the watch's queue and are given back by `close` from any thread, so
    // they live in a lock with whether the watch has been closed.
    private let watches: LockedState<Watches>

    /// How often a watch with no file at its path checks its directory.
    static let directoryCheckInterval = DispatchTimeInterval.milliseconds(250)

    /// Translates the events of `fileWatch` and `directoryWatch` on `queue`, where it also checks
    /// the directory and sends the changes that a check finds.
    init(
      inotify: Inotify, receiver: InotifyReceiver, path: String, directory: String, name: String,
      fileWatch: Int32, directoryWatch: Int32, queue: DispatchQueue,
      send: @escaping @Sendable (FileChange) -> Void
    ) {
      self.inotify = inotify
      self.receiver = receiver
      self.path = path
      self.directory = directory
      self.name = name
      self.queue = queue
      self.send = send
      self.watches = LockedState(Watches(file: fileWatch, directory: directoryWatch))
    }

    func changes(_ events: [InotifyEvent]) -> [FileChange] {
      var changes: [FileChange] = []
      for event in events {
        let (fileWatch, directoryWatch) = watches.withLock { ($0.file, $0.directory) }
        if event.watch == directoryWatch {
          if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
            directoryGone(renamed: event.mask & UInt32(IN_MOVE_SELF) != 0, &changes)
            continue
          }
          guard event.name == name else { continue }
          if event.mask & UInt32(IN_CREATE) != 0 {
            if watchFile() != .same { changes.append(.created) }
          } else if event.mask & UInt32(IN_MOVED_TO) != 0 {
            if watchFile() != .same { changes.append(fileWatch >= 0 ? .replaced : .created) }
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
      let (file, directory) = watches.withLock { watches in
        defer {
          watches.file = -1
          watches.directory = -1
          watches.isClosed = true
        }
        return watches.isClosed ? (-1, -1) : (watches.file, watches.directory)
      }
      if file >= 0 { inotify.remove(file, for: receiver) }
      if directory >= 0 { inotify.remove(directory, for: receiver) }
    }

    /// The directory was removed or renamed away: gives its watch back, reports the end of a
    /// file still watched, and checks for the directory until one is at the path again.
    private func directoryGone(renamed: Bool, _ changes: inout [FileChange]) {
      let (watchesFile, directory) = watches.withLock { watches in
        defer { watches.directory = -1 }
        return (watches.file >= 0, watches.directory)
      }
      if directory >= 0 { inotify.remove(directory, for: receiver) }
      if watchesFile { changes.append(renamed ? .renamed : .deleted) }
      unwatchFile()
    }

    /// Starts the checks of the directory, unless they run already; they stop once a file is
    /// watched or the watch is closed.
    private func checkDirectoryLater() {
      let starts = watches.withLock { watches in
        guard !watches.isChecking, !watches.isClosed else { return false }
        watches.isChecking = true
        return true
      }
      if starts { scheduleCheck() }
    }

    private func scheduleCheck() {
      queue.asyncAfter(deadline: .now() + Self.directoryCheckInterval) { [self] in
        checkDirectory()
      }
    }

    /// One check, on the watch's queue: the system gives the watch of the directory at the path,
    /// which is the one held when that is the directory watched.
    private func checkDirectory() {
      let check = watches.withLock { watches -> DirectoryCheck in
        guard !watches.isClosed, watches.file < 0 else {
          watches.isChecking = false
          return .done
        }
        let old = watches.directory
        guard
          case .success(let watch) = inotify.add(
            directory, mask: FileWatcher.directoryMask, for: receiver)
        else {
          watches.directory = -1
          return .other(old: old, isWatched: false)
        }
        watches.directory = watch
        return watch == old ? .same(watch) : .other(old: old, isWatched: true)
      }
      switch check {
      case .done:
        return
      case .same(let watch):
        inotify.remove(watch, for: receiver)
      case .other(let old, let isWatched):
        if old >= 0 { inotify.remove(old, for: receiver) }
        if isWatched, watchFile() == .other { send(.created) }
      }
      scheduleCheck()
    }

    /// Watches the file now at the path instead of the one watched, if any.
    private func watchFile() -> FileAtPath {
      let (old, new) = watches.withLock { watches -> (Int32, Int32?) in
        let old = watches.file
        guard !watches.isClosed,
          case .success(let watch) = inotify.add(path, mask: Self.mask, for: receiver)
        else {
          watches.file = -1
          return (old, nil)
        }
        watches.file = watch
        return (old, watch)
      }
      // The same file gives the same watch, which this watch now holds twice: once is enough.
      if old >= 0 { inotify.remove(old, for: receiver) }
      guard let new else {
        checkDirectoryLater()
        return .none
      }
      return new == old ? .same : .other
    }

    private func unwatchFile() {
      let file = watches.withLock { watches in
        defer { watches.file = -1 }
        return watches.file
      }
      if file >= 0 { inotify.remove(file, for: receiver) }
      checkDirectoryLater()
    }

    private static let mask = UInt32(IN_MODIFY | IN_ATTRIB)
  }

  /// Turns the events of a descriptor watch into changes.
  private final class DescriptorTranslator: InotifyTranslator {
    private let inotify: Inotify
    private let receiver: InotifyReceiver
    // The watch's own duplicate of the caller's descriptor, closed by `close`.
    private let duplicate: Int32
    private let watch: Int32
    // Whether `.deleted` was reported (used on the watch's queue), and whether the watch was
    // closed (set from any thread).
    private let state = LockedState((deleted: false, isClosed: false))

    init(inotify: Inotify, receiver: InotifyReceiver, duplicate: Int32, watch: Int32) {
      self.inotify = inotify
      self.receiver = receiver
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
      inotify.remove(watch, for: receiver)
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
