#if os(Linux) || os(Android)
  import IndefiniteObservable
  import Multicast
  import Synchronization

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// Turns the events of a path watch into changes, and moves the file watch to whatever file
  /// appears at the path.
  ///
  /// While no file is at the path, the watch also checks every ``directoryCheckInterval`` that
  /// the directory at the path is still the one it watches: a directory removed or renamed away
  /// may hold no path any more long before the system says so (a descriptor still open on a file
  /// of a removed directory delays its events until it is closed). When the directory at the path
  /// is another, or none, the watch reports the end of a file it still watched, watches the
  /// directory there once there is one, and reports a file already at the path as created.
  final class PathTranslator: InotifyTranslator {
    private struct Watches {
      // Each change is published to `descriptors`, still under the lock.
      var file: Int32 { didSet { descriptors.publish(file: file, directory: directory) } }
      var directory: Int32 { didSet { descriptors.publish(file: file, directory: directory) } }
      let descriptors: WatchDescriptors
      var isChecking = false
      var isClosed = false
      // The alarm of the directory checks, made by the first check; cancelled by `close`.
      var checks: (any Alarm)?
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
    private let path: String
    private let directory: String
    private let name: String
    private let send: @Sendable (FileChange) -> Void
    // The watches change in the inotify instance's turn and are given back by `close` from any
    // thread, so they live in a lock with whether the watch has been closed.
    private let watches: LockedState<Watches>
    // The two watch descriptors, as the lock last left them, for `receive` to read at each
    // event with no lock.
    private let descriptors = WatchDescriptors()

    /// How often a watch with no file at its path checks its directory.
    static let directoryCheckInterval = Duration.milliseconds(250)

    /// Watches `path` (`directory`/`name`): the file there, and its name in its directory;
    /// with no file there, the name alone when `ifMissing` says to wait for it. Its events are
    /// translated in the turn of `inotify`, where it also checks the directory; each change
    /// found goes to `send`.
    init(
      inotify: Inotify, path: String, directory: String, name: String,
      ifMissing: FileWatch.IfMissing, send: @escaping @Sendable (FileChange) -> Void
    ) throws(FileWatchError) {
      self.inotify = inotify
      self.path = path
      self.directory = directory
      self.name = name
      self.send = send
      self.watches = LockedState(Watches(file: -1, directory: -1, descriptors: descriptors))
      var isMissing = false
      switch System.status(path: path) {
      case .success: break
      case .failure(let errno) where errno.rawValue == ENOENT || errno.rawValue == ENOTDIR:
        guard ifMissing == .waitForIt else { throw .notFound(path) }
        isMissing = true
      case .failure(let errno): throw .notAccessible(path, errno)
      }
      let directoryWatch: Int32
      switch inotify.add(directory, mask: FileWatcher.directoryMask, for: self) {
      case .success(let watch): directoryWatch = watch
      case .failure(let errno):
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      var fileWatch: Int32 = -1
      switch isMissing ? nil : inotify.add(path, mask: Self.mask, for: self) {
      case nil: break
      case .success(let watch): fileWatch = watch
      case .failure(let errno) where errno.rawValue == ENOENT && ifMissing == .waitForIt: break
      case .failure(let errno):
        inotify.remove(directoryWatch, for: self)
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      watches.withLock { watches in
        watches.file = fileWatch
        watches.directory = directoryWatch
      }
    }

    /// Translates one read's events, in order.
    ///
    /// The events of a read all happened before it, so a file that arrived at the path and
    /// left it again within them is not the one there now (a loaded reader takes in a file
    /// made and renamed away within a millisecond this way): it is reported by its departure
    /// alone, whose `.renamed(to:)` names where it went when that is in the same directory, so
    /// it can still be opened there. The file at the path, if any, is reported by its own
    /// arrival, the last one of the read.
    func receive(_ events: InotifyEvents) {
      var rest = events.makeIterator()
      // Where the name last leaves the directory in this read, looked for at its first
      // arrival: an arrival before it is of a file that is gone again.
      var lookedForDeparture = false
      var lastDeparture: Int?
      while let event = rest.next() {
        let (fileWatch, directoryWatch) = descriptors.read()
        if event.watch == directoryWatch {
          if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
            directoryGone(renamed: event.mask & UInt32(IN_MOVE_SELF) != 0)
            continue
          }
          guard event.name == name else { continue }
          if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            if !lookedForDeparture {
              lookedForDeparture = true
              lastDeparture = Self.lastDeparture(of: name, in: directoryWatch, after: rest)
            }
            if let lastDeparture, rest.offset <= lastDeparture { continue }
            let replaces = event.mask & UInt32(IN_MOVED_TO) != 0 && fileWatch >= 0
            if watchFile() != .same { send(replaces ? .replaced : .created) }
          } else if event.mask & UInt32(IN_DELETE) != 0 {
            send(.deleted)
            unwatchFile()
          } else if event.mask & UInt32(IN_MOVED_FROM) != 0 {
            send(.renamed(to: destination(of: event.cookie, in: directoryWatch, after: rest)))
            unwatchFile()
          }
        } else if event.watch == fileWatch {
          if event.mask & UInt32(IN_MODIFY) != 0 { send(.modified) }
          if event.mask & UInt32(IN_ATTRIB) != 0 { send(.attributes) }
          if event.mask & UInt32(IN_IGNORED) != 0 { unwatchFile() }
        }
      }
    }

    /// Where in the read the last event that takes `name` out of the directory (its deletion,
    /// or its rename away) begins, among the events after `rest`'s position; nil for none.
    private static func lastDeparture(
      of name: String, in directoryWatch: Int32, after rest: InotifyEvents.Iterator
    ) -> Int? {
      var later = rest
      var found: Int?
      var start = later.offset
      while let event = later.next() {
        if event.watch == directoryWatch, event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0,
          event.name == name
        {
          found = start
        }
        start = later.offset
      }
      return found
    }

    /// The path that the rename with `cookie` gave the file, when its other half is among the
    /// events after `rest`'s position: a new name in the same directory. Nil when it was moved
    /// to another directory, or its other half is not read yet.
    private func destination(
      of cookie: UInt32, in directoryWatch: Int32, after rest: InotifyEvents.Iterator
    ) -> String? {
      var later = rest
      while let event = later.next() {
        guard event.watch == directoryWatch, event.mask & UInt32(IN_MOVED_TO) != 0,
          event.cookie == cookie
        else { continue }
        return sibling(named: event.name)
      }
      return nil
    }

    /// The path of the file named `other` in the watched path's directory, written as the
    /// watched path is (relative when it is).
    private func sibling(named other: String) -> String {
      guard path.contains("/") else { return other }
      return directory.hasSuffix("/") ? directory + other : directory + "/" + other
    }

    /// Watches the file at the path now and reports what became of the one watched: the same
    /// file, `.modified` (it may have been written); another, `.replaced` (or `.created` when
    /// none was watched); none, `.deleted` when one was watched (whether it was renamed away or
    /// deleted cannot be told any more).
    func receiveLostEvents() {
      let watched = watches.withLock { $0.file >= 0 }
      switch watchFile() {
      case .same: send(.modified)
      case .other: send(watched ? .replaced : .created)
      case .none: if watched { send(.deleted) }
      }
    }

    func close() {
      let (file, directory, checks) = watches.withLock { watches in
        defer {
          watches.file = -1
          watches.directory = -1
          watches.isClosed = true
        }
        let checks = watches.checks.take()
        return watches.isClosed ? (-1, -1, checks) : (watches.file, watches.directory, checks)
      }
      checks?.cancel()
      if file >= 0 { inotify.remove(file, for: self) }
      if directory >= 0 { inotify.remove(directory, for: self) }
    }

    /// The directory was removed or renamed away: gives its watch back, reports the end of a
    /// file still watched, and checks for the directory until one is at the path again.
    private func directoryGone(renamed: Bool) {
      let (watchesFile, directory) = watches.withLock { watches in
        defer { watches.directory = -1 }
        return (watches.file >= 0, watches.directory)
      }
      if directory >= 0 { inotify.remove(directory, for: self) }
      if watchesFile { send(renamed ? .renamed(to: nil) : .deleted) }
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

    /// Arms the alarm of the checks (made the first time), which runs the next check in the
    /// inotify instance's turn: the module's one timer mechanism, on Dispatch's clock.
    private func scheduleCheck() {
      let checks = watches.withLock { watches -> (any Alarm)? in
        guard !watches.isClosed else { return nil }
        if watches.checks == nil {
          watches.checks = DispatchAlarm(
            gate: ObserverGate { [self] _ in inotify.serially { checkDirectory() } },
            leeway: .zero)
        }
        return watches.checks
      }
      checks?.arm(after: Self.directoryCheckInterval, repeating: nil)
    }

    /// One check, in the inotify instance's turn: the system gives the watch of the directory
    /// at the path, which is the one held when that is the directory watched.
    private func checkDirectory() {
      let check = watches.withLock { watches -> DirectoryCheck in
        guard !watches.isClosed, watches.file < 0 else {
          watches.isChecking = false
          return .done
        }
        let old = watches.directory
        guard
          case .success(let watch) = inotify.add(
            directory, mask: FileWatcher.directoryMask, for: self)
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
        inotify.remove(watch, for: self)
      case .other(let old, let isWatched):
        if old >= 0 { inotify.remove(old, for: self) }
        if isWatched, watchFile() == .other { send(.created) }
      }
      scheduleCheck()
    }

    /// Watches the file now at the path instead of the one watched, if any.
    private func watchFile() -> FileAtPath {
      let (old, new) = watches.withLock { watches -> (Int32, Int32?) in
        let old = watches.file
        guard !watches.isClosed,
          case .success(let watch) = inotify.add(path, mask: Self.mask, for: self)
        else {
          watches.file = -1
          return (old, nil)
        }
        watches.file = watch
        return (old, watch)
      }
      // The same file gives the same watch, which this watch now holds twice: once is enough.
      if old >= 0 { inotify.remove(old, for: self) }
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
      if file >= 0 { inotify.remove(file, for: self) }
      checkDirectoryLater()
    }

    private static let mask = UInt32(IN_MODIFY | IN_ATTRIB)
  }
  /// The file and directory watch descriptors of a ``PathTranslator``, published by each change
  /// made under its lock and read with none, as one pair: each event of a batch is matched to
  /// them with no lock taken (one a line of `follow`).
  private final class WatchDescriptors: Sendable {
    // The file's descriptor in the low half, the directory's in the high one.
    private let pair = Atomic<UInt64>(WatchDescriptors.pack(file: -1, directory: -1))

    func publish(file: Int32, directory: Int32) {
      pair.store(Self.pack(file: file, directory: directory), ordering: .releasing)
    }

    /// The file's watch descriptor and the directory's, -1 for none.
    func read() -> (file: Int32, directory: Int32) {
      let pair = pair.load(ordering: .acquiring)
      return (
        Int32(bitPattern: UInt32(truncatingIfNeeded: pair)),
        Int32(bitPattern: UInt32(truncatingIfNeeded: pair >> 32))
      )
    }

    private static func pack(file: Int32, directory: Int32) -> UInt64 {
      UInt64(UInt32(bitPattern: file)) | UInt64(UInt32(bitPattern: directory)) << 32
    }
  }
#endif
