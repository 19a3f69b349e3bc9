#if os(Linux) || os(Android)
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The process's one inotify instance, shared by every file watch.
  ///
  /// Made by the first watch and kept for the life of the process (one descriptor), like the
  /// signal self-pipe: a watch adds its inotify watches to it and removes them when it goes,
  /// synchronously, so no watch ever waits for a descriptor to be closed on a queue, and the
  /// system's per-user limit on instances (128 by default) is never in play.
  ///
  /// Events are demultiplexed by watch descriptor: each watch descriptor has the translators of
  /// the watches that added it, and a batch of events read goes, in one hop per translator, only
  /// to the translators of the descriptors it names. An event costs a dictionary lookup, however
  /// many watches the process has, and none when its descriptor is the one looked up last. The kernel gives two watches of one file the same watch
  /// descriptor, so a descriptor may have several translators (and one translator the same
  /// descriptor twice, for a moment, while a path watch moves to the file it already watches).
  /// When the system's queue of events overflows (`max_queued_events`, 16,384 by default), it
  /// drops events and says so once: then every watch looks again at what it watches.
  final class Inotify: Sendable {
    private let fd: Int32
    private let channel: ProcessChannel
    /// The translators of each watch descriptor of the instance, once per `add`.
    private let routes: LockedState<Routes>

    /// The translators of each watch descriptor, and the one looked up last.
    private struct Routes {
      var byWatch: [Int32: [any InotifyTranslator]] = [:]
      /// The translators of the watch descriptor `lastWatch` (-1: none), as `byWatch` has them:
      /// a batch of the same watch as the one before it, the usual one, is routed with no
      /// hashing. Changed with `byWatch`'s entry for that descriptor.
      var lastWatch: Int32 = -1
      var lastTranslators: [any InotifyTranslator] = []

      /// The translators of `watch`, if any.
      mutating func translators(of watch: Int32) -> [any InotifyTranslator]? {
        if watch == lastWatch { return lastTranslators }
        guard let translators = byWatch[watch] else { return nil }
        lastWatch = watch
        lastTranslators = translators
        return translators
      }

      /// Sets the translators of `watch` (nil: none); returns the list that the cache held, to
      /// be released after the lock.
      mutating func set(_ translators: [any InotifyTranslator]?, of watch: Int32)
        -> [any InotifyTranslator]
      {
        byWatch[watch] = translators
        guard watch == lastWatch else { return [] }
        lastWatch = -1
        defer { lastTranslators = [] }
        return lastTranslators
      }
    }

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

    /// Runs `body` in the instance's turn (``ProcessChannel/serially(_:)``), where its events
    /// are read and every watch translates them: a watch's directory checks run there too.
    func serially<Result>(_ body: () -> Result) -> Result { channel.serially(body) }

    private init(fd: Int32) {
      self.fd = fd
      let routes = LockedState(Routes())
      self.routes = routes
      channel = ProcessChannel(fd: fd, isCut: { InotifyEvents(raw: $0).hasHalfOfARename }) {
        bytes in
        Self.route(InotifyEvents(raw: bytes), through: routes)
      }
    }

    /// Hands each translator of the watch descriptors that `batch` names the batch, once, in
    /// the order of their first events, on the thread that read them, in the instance's turn
    /// (no hop); each takes the events of its own descriptors from it. Events of descriptors
    /// with no translator (given back already) go nowhere.
    private static func route(_ batch: InotifyEvents, through routes: LockedState<Routes>) {
      // The system's queue overflowed: it dropped events of any watch, so every watch looks
      // again at what it watches (a rare event; the only one that goes to every watch).
      if let (before, after) = batch.split(atFirst: UInt32(IN_Q_OVERFLOW)) {
        route(before, through: routes)
        let translators = routes.withLock { routes in
          var seen: Set<ObjectIdentifier> = []
          return routes.byWatch.values.joined().filter {
            seen.insert(ObjectIdentifier($0)).inserted
          }
        }
        for translator in translators { translator.receiveLostEvents() }
        return route(after, through: routes)
      }
      // The usual batch, one change to one watched file: one translator, with no list made.
      if let watch = batch.onlyWatch {
        let only = routes.withLock { routes -> (any InotifyTranslator)? in
          // The cached list's one translator when the watch is the last one, read in place:
          // no copy of the list to retain and release.
          if watch == routes.lastWatch {
            return routes.lastTranslators.count == 1 ? routes.lastTranslators[0] : nil
          }
          guard let translators = routes.translators(of: watch), translators.count == 1 else {
            return nil
          }
          return translators[0]
        }
        if let only { return only.receive(batch) }
      }
      // The translators are taken out under the lock and handed the batch after it.
      let translators = routes.withLock { routes in
        var translators: [any InotifyTranslator] = []
        var seen: Set<ObjectIdentifier> = []
        for event in batch {
          for translator in routes.translators(of: event.watch) ?? []
          where seen.insert(ObjectIdentifier(translator)).inserted {
            translators.append(translator)
          }
        }
        return translators
      }
      for translator in translators { translator.receive(batch) }
    }

    /// Adds `mask` to the watch of the file at `path` (following symbolic links), whose events
    /// go to `translator` from now on; the watch descriptor, to be given back with
    /// ``remove(_:for:)``.
    func add(_ path: String, mask: UInt32, for translator: any InotifyTranslator) -> Result<
      Int32, Errno
    > {
      routes.withLock { routes in
        let watch = inotify_add_watch(fd, path, mask | UInt32(IN_MASK_ADD))
        guard watch >= 0 else { return .failure(Errno(System.errno)) }
        var translators = routes.byWatch[watch] ?? []
        translators.append(translator)
        let cached = routes.set(translators, of: watch)
        withExtendedLifetime(cached) {}  // the translators, alive in `byWatch` still
        return .success(watch)
      }
    }

    /// Gives back a watch descriptor that ``add(_:mask:for:)`` returned for `translator`; its
    /// events stop going there, and the last user removes the watch.
    ///
    /// Each user gives it back once, also when the kernel removed the watch by itself
    /// (`IN_IGNORED`: the file was deleted); removing it again then fails harmlessly, and the
    /// kernel never reuses the number for another watch soon (it allocates them cyclically).
    func remove(_ watch: Int32, for translator: any InotifyTranslator) {
      // The lists replaced are released after the lock (the caller holds `translator`).
      let replaced = routes.withLock { routes -> [[any InotifyTranslator]] in
        guard var translators = routes.byWatch[watch],
          let index = translators.firstIndex(where: { $0 === translator })
        else { return [] }  // not a watch of this translator
        let before = translators
        translators.remove(at: index)
        if translators.isEmpty {
          _ = inotify_rm_watch(fd, watch)
          return [before, routes.set(nil, of: watch)]
        }
        return [before, routes.set(translators, of: watch)]
      }
      withExtendedLifetime(replaced) {}
    }
  }
#endif
