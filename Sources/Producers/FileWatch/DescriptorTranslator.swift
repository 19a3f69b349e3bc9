#if os(Linux) || os(Android)
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// Turns the events of a descriptor watch into changes.
  final class DescriptorTranslator: InotifyTranslator {
    private let inotify: Inotify
    // The watch's own duplicate of the caller's descriptor, closed by `close`.
    private let duplicate: Int32
    private let send: @Sendable (FileChange) -> Void
    // The watch descriptor (set once it is made), whether `.deleted` was reported (used in the
    // inotify instance's turn), and whether the watch was closed (set from any thread).
    private let state = LockedState((watch: Int32(-1), deleted: false, isClosed: false))

    private static let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

    /// Watches the file open as `fd`, through its `/proc/self/fd` link, and keeps a duplicate
    /// of `fd` of its own, so that a number the caller closes and the system reuses is never
    /// taken for the watched file. Each change found goes to `send`.
    init(
      inotify: Inotify, descriptor fd: Int32, send: @escaping @Sendable (FileChange) -> Void
    ) throws(FileWatchError) {
      switch System.duplicate(fd) {
      case .success(let made): duplicate = made
      case .failure(let errno): throw .descriptor(.duplicateFailed(fd, errno))
      }
      self.inotify = inotify
      self.send = send
      switch inotify.add("/proc/self/fd/\(duplicate)", mask: Self.mask, for: self) {
      case .success(let made): state.withLock { $0.watch = made }
      case .failure(let errno):
        System.close(duplicate)
        throw .watchFailed(errno)
      }
    }

    func receive(_ events: InotifyEvents) {
      let watch = state.withLock { $0.watch }
      for event in events where event.watch == watch {
        if event.mask & UInt32(IN_MODIFY) != 0 { send(.modified) }
        if event.mask & UInt32(IN_ATTRIB) != 0 {
          send(.attributes)
          if linkCount() == 0 { markDeleted() }
        }
        if event.mask & UInt32(IN_MOVE_SELF) != 0 { send(.renamed(to: nil)) }
        if event.mask & UInt32(IN_DELETE_SELF) != 0 { markDeleted() }
      }
    }

    func receiveLostEvents() {
      send(.modified)
      if linkCount() == 0 { markDeleted() }
    }

    func close() {
      let watch = state.withLock { state in
        defer { state.isClosed = true }
        return state.isClosed ? nil : state.watch
      }
      guard let watch else { return }
      inotify.remove(watch, for: self)
      System.close(duplicate)
    }

    /// The file's links, while the watch is open.
    private func linkCount() -> Int? {
      state.withLock { state in
        guard !state.isClosed, case .success(let info) = System.status(duplicate) else {
          return nil
        }
        return Int(info.st_nlink)
      }
    }

    /// Sends `.deleted`, the first time only.
    private func markDeleted() {
      let first = state.withLock { state in
        defer { state.deleted = true }
        return !state.deleted
      }
      if first { send(.deleted) }
    }
  }
#endif
