#if os(Linux) || os(Android)
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// Where the events of one watch's watch descriptors go: its translator, on the thread that
  /// read them (in the instance's turn), and the changes found to its emitter, which hands each to its
  /// subscribers' actors: one thread switch from the read to the subscriber.
  ///
  /// Made before the watch's first `add` (the instance routes to it from then on) and started
  /// once its translator exists; events routed before that, or after ``stop()``, are dropped,
  /// as they were when each watch subscribed to every event after its watches were added.
  final class InotifyReceiver: Sendable {
    private struct Target {
      var translator: (any InotifyTranslator)?
      var changes: SendableEmitter<FileChange>?
    }
    // Set once by `start`, read in the instance's turn.
    private let target = LockedState(Target())

    init() {}

    /// Sends the changes that `translator` finds in the events routed here to `changes`.
    func start(
      _ translator: any InotifyTranslator, sendingTo changes: SendableEmitter<FileChange>
    ) {
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

    /// Tells the translator that the system dropped events, and sends what it finds, in the
    /// instance's turn.
    func receiveLostEvents() {
      let target = self.target.withLock { $0 }
      guard let translator = target.translator, let changes = target.changes else { return }
      for change in translator.changesAfterLostEvents() { changes.send(change) }
    }

    /// Translates `events` (all of this receiver's watch descriptors) now, on the thread that
    /// read them, in the instance's turn.
    func receive(_ events: [InotifyEvent]) {
      let target = self.target.withLock { $0 }
      guard let translator = target.translator, let changes = target.changes else { return }
      for change in translator.changes(events) { changes.send(change) }
    }
  }
#endif
