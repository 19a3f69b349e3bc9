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
  /// many watches the process has. The kernel gives two watches of one file the same watch
  /// descriptor, so a descriptor may have several translators (and one translator the same
  /// descriptor twice, for a moment, while a path watch moves to the file it already watches).
  /// When the system's queue of events overflows (`max_queued_events`, 16,384 by default), it
  /// drops events and says so once: then every watch looks again at what it watches.
  final class Inotify: Sendable {
    private let fd: Int32
    private let channel: ProcessChannel
    /// The translators of each watch descriptor of the instance, once per `add`.
    private let routes: LockedState<[Int32: [any InotifyTranslator]]>

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
      let routes = LockedState<[Int32: [any InotifyTranslator]]>([:])
      self.routes = routes
      channel = ProcessChannel(fd: fd) { bytes in
        Self.route(InotifyEvent.parse(bytes), through: routes)
      }
    }

    /// Hands each translator the events of `batch` for its watch descriptors, in order, on the
    /// thread that read them, in the instance's turn (no hop); events of descriptors with no translator (given back
    /// already) are dropped.
    private static func route(
      _ batch: [InotifyEvent], through routes: LockedState<[Int32: [any InotifyTranslator]]>
    ) {
      // The system's queue overflowed: it dropped events of any watch, so every watch looks
      // again at what it watches (a rare event; the only one that goes to every watch).
      if let overflow = batch.firstIndex(where: { $0.mask & UInt32(IN_Q_OVERFLOW) != 0 }) {
        route(Array(batch[..<overflow]), through: routes)
        let translators = routes.withLock { routes in
          var seen: Set<ObjectIdentifier> = []
          return routes.values.joined().filter { seen.insert(ObjectIdentifier($0)).inserted }
        }
        for translator in translators { translator.receiveLostEvents() }
        return route(Array(batch[(overflow + 1)...]), through: routes)
      }
      // The usual batch, one change to one watched file: one translator, all of the events, as
      // read (no list of deliveries to make).
      let only = routes.withLock { routes -> (any InotifyTranslator)? in
        guard let watch = batch.first?.watch, let translators = routes[watch],
          translators.count == 1, batch.allSatisfy({ $0.watch == watch })
        else { return nil }
        return translators[0]
      }
      if let only { return only.receive(batch) }
      // The translators are taken out under the lock and handed their events after it.
      let deliveries = routes.withLock { routes in
        var deliveries: [(translator: any InotifyTranslator, events: [InotifyEvent])] = []
        var indices: [ObjectIdentifier: Int] = [:]
        for event in batch {
          guard let translators = routes[event.watch] else { continue }
          // A translator that added the descriptor twice gets the event once.
          var seen: Set<ObjectIdentifier> = []
          for translator in translators
          where translators.count == 1 || seen.insert(ObjectIdentifier(translator)).inserted {
            if let index = indices[ObjectIdentifier(translator)] {
              deliveries[index].events.append(event)
            } else {
              indices[ObjectIdentifier(translator)] = deliveries.count
              deliveries.append((translator, [event]))
            }
          }
        }
        return deliveries
      }
      for delivery in deliveries { delivery.translator.receive(delivery.events) }
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
        routes[watch, default: []].append(translator)
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
      routes.withLock { routes in
        guard var translators = routes[watch],
          let index = translators.firstIndex(where: { $0 === translator })
        else { return }  // not a watch of this translator
        translators.remove(at: index)
        if translators.isEmpty {
          routes[watch] = nil
          _ = inotify_rm_watch(fd, watch)
        } else {
          routes[watch] = translators
        }
      }
    }
  }
#endif
