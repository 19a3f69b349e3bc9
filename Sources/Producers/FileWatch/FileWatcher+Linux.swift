#if os(Linux) || os(Android)
  import Dispatch
  import IndefiniteObservable

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The system watch behind a ``FileWatch`` stream, on Linux: an inotify instance, read with
  /// the bytes stream of ``FileDescriptors``.
  ///
  /// `@unchecked Sendable`: `observers` is thread-safe; `reading` and `translator` are
  /// immutable references (the translator's own state is used only on the delivery queue).
  final class FileWatcher: @unchecked Sendable {
    let observers = ObserverList<FileChange>()
    private let reading: Subscription

    /// Watches `path`: the file there, and its name in its parent directory.
    init(path: String, queue: DispatchQueue) throws(FileWatchError) {
      switch System.status(path: path) {
      case .success: break
      case .failure(let errno) where errno.rawValue == ENOENT || errno.rawValue == ENOTDIR:
        throw .notFound(path)
      case .failure(let errno): throw .notAccessible(path, errno)
      }
      let fd = try Self.makeInstance()
      let (directory, name) = Self.split(path)
      let fileWatch = inotify_add_watch(fd, path, Self.fileMask)
      let directoryWatch = inotify_add_watch(
        fd, directory, Self.directoryMask | UInt32(IN_ONLYDIR))
      guard fileWatch >= 0, directoryWatch >= 0 else {
        let errno = Errno(System.errno)
        System.close(fd)
        throw errno.rawValue == ENOENT ? .notFound(path) : .notAccessible(path, errno)
      }
      let translator = PathTranslator(
        fd: fd, path: path, name: name, fileWatch: fileWatch, directoryWatch: directoryWatch)
      reading = try Self.read(fd, queue: queue, observers: observers, translate: translator.changes)
    }

    /// Watches the file open as `fd`, through its `/proc/self/fd` link.
    init(descriptor: Int32, queue: DispatchQueue) throws(FileWatchError) {
      let fd = try Self.makeInstance()
      let watch = inotify_add_watch(fd, "/proc/self/fd/\(descriptor)", Self.descriptorMask)
      guard watch >= 0 else {
        let errno = Errno(System.errno)
        System.close(fd)
        throw .watchFailed(errno)
      }
      let translator = DescriptorTranslator(descriptor: descriptor)
      reading = try Self.read(fd, queue: queue, observers: observers, translate: translator.changes)
    }

    deinit {
      reading.unsubscribe()
    }

    private static let fileMask = UInt32(IN_MODIFY | IN_ATTRIB)
    private static let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
    private static let descriptorMask = UInt32(
      IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

    private static func makeInstance() throws(FileWatchError) -> Int32 {
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { throw .watchFailed(Errno(System.errno)) }
      return fd
    }

    /// Subscribes to the bytes of the inotify descriptor, which the subscription then owns.
    private static func read(
      _ fd: Int32,
      queue: DispatchQueue,
      observers: ObserverList<FileChange>,
      translate: @escaping ([InotifyEvent]) -> [FileChange]
    ) throws(FileWatchError) -> Subscription {
      let bytes: DescriptorObservable<[UInt8]>
      do {
        bytes = try FileDescriptors.bytes(of: fd, ownership: .streamCloses, on: queue)
      } catch {
        System.close(fd)
        throw .descriptor(error)
      }
      return bytes.subscribe { chunk in
        for change in translate(InotifyEvent.parse(chunk)) { observers.send(change) }
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

  /// One event read from an inotify descriptor.
  struct InotifyEvent {
    var watch: Int32
    var mask: UInt32
    var name: String

    /// The events of one read (inotify returns whole events only).
    static func parse(_ bytes: [UInt8]) -> [InotifyEvent] {
      var events: [InotifyEvent] = []
      bytes.withUnsafeBytes { raw in
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
      }
      return events
    }
  }

  /// Turns the events of a path watch into changes, and moves the file watch to whatever file
  /// appears at the path.
  ///
  /// `@unchecked Sendable`: `fileWatch` is used only by `changes`, which runs on the serial
  /// delivery queue of the watcher's read subscription.
  private final class PathTranslator: @unchecked Sendable {
    let fd: Int32
    let path: String
    let name: String
    var fileWatch: Int32
    let directoryWatch: Int32

    init(fd: Int32, path: String, name: String, fileWatch: Int32, directoryWatch: Int32) {
      self.fd = fd
      self.path = path
      self.name = name
      self.fileWatch = fileWatch
      self.directoryWatch = directoryWatch
    }

    @Sendable func changes(_ events: [InotifyEvent]) -> [FileChange] {
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
          if event.mask & UInt32(IN_IGNORED) != 0 { fileWatch = -1 }
        }
      }
      return changes
    }

    private func watchFile() {
      unwatchFile()
      fileWatch = inotify_add_watch(fd, path, UInt32(IN_MODIFY | IN_ATTRIB))
    }

    private func unwatchFile() {
      if fileWatch >= 0 { _ = inotify_rm_watch(fd, fileWatch) }
      fileWatch = -1
    }
  }

  /// Turns the events of a descriptor watch into changes.
  ///
  /// `@unchecked Sendable`: `deleted` is used only by `changes`, which runs on the serial
  /// delivery queue of the watcher's read subscription.
  private final class DescriptorTranslator: @unchecked Sendable {
    let descriptor: Int32
    var deleted = false

    init(descriptor: Int32) {
      self.descriptor = descriptor
    }

    @Sendable func changes(_ events: [InotifyEvent]) -> [FileChange] {
      var changes: [FileChange] = []
      for event in events {
        if event.mask & UInt32(IN_MODIFY) != 0 { changes.append(.modified) }
        if event.mask & UInt32(IN_ATTRIB) != 0 {
          changes.append(.attributes)
          if case .success(let info) = System.status(descriptor), info.st_nlink == 0 {
            markDeleted(&changes)
          }
        }
        if event.mask & UInt32(IN_MOVE_SELF) != 0 { changes.append(.renamed) }
        if event.mask & UInt32(IN_DELETE_SELF) != 0 { markDeleted(&changes) }
      }
      return changes
    }

    private func markDeleted(_ changes: inout [FileChange]) {
      guard !deleted else { return }
      deleted = true
      changes.append(.deleted)
    }
  }
#endif
