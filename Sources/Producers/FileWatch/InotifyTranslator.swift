#if os(Linux) || os(Android)
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// Turns the events of one watch into changes and sends them, on the thread that read them,
  /// in the inotify instance's turn (one thread at a time), and gives its watch descriptors back
  /// when the watch goes. The instance's routes hold it from its first watch descriptor to
  /// ``close()``.
  ///
  /// A class: its existential is a reference, which an event's way copies with a retain (an
  /// existential of any type is copied through its type's value witnesses).
  protocol InotifyTranslator: AnyObject, Sendable {
    /// Sends the changes that `events` mean for this watch. The batch may hold events of other
    /// watches beside this one's (when a read holds events of several), which it ignores: each
    /// translator of the batch's descriptors is handed the whole batch, once.
    func receive(_ events: InotifyEvents)
    /// Sends the changes to report when the system dropped events (its queue overflowed),
    /// looked up now: whatever the dropped events would have said.
    func receiveLostEvents()
    /// Gives back the watch descriptors: no event is routed here after it returns. Idempotent.
    func close()
  }
#endif
