#if os(Linux) || os(Android)
  import Dispatch
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
    private let receiver: InotifyReceiver
    // The watch's own duplicate of the caller's descriptor, closed by `close`.
    private let duplicate: Int32
    private let watch: Int32
    // Whether `.deleted` was reported (used in the inotify instance's turn), and whether the
    // watch was closed (set from any thread).
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

    /// The file may have been written, and may have lost its last link: reports `.modified`,
    /// and `.deleted` once the file has no link.
    func changesAfterLostEvents() -> [FileChange] {
      var changes: [FileChange] = [.modified]
      if linkCount() == 0 { markDeleted(&changes) }
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
