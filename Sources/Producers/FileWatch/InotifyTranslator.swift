#if os(Linux) || os(Android)
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// Turns the events of one watch into changes, on the thread that read them, in the inotify
  /// instance's turn (one thread at a time), and gives its watch descriptors back when the watch goes.
  ///
  /// A class: its existential is a reference, which an event's way copies with a retain (an
  /// existential of any type is copied through its type's value witnesses).
  protocol InotifyTranslator: AnyObject, Sendable {
    /// The changes that `events` (of every watch in the process) mean for this watch.
    func changes(_ events: [InotifyEvent]) -> [FileChange]
    /// The changes to report when the system dropped events (its queue overflowed), looked up
    /// now: whatever the dropped events would have said.
    func changesAfterLostEvents() -> [FileChange]
    /// Gives back the watch descriptors; after it returns, no new one is taken. Idempotent.
    func close()
  }
#endif
