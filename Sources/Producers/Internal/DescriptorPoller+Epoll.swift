#if os(Linux)
  import CIndefiniteObservable
  import Dispatch
  import IndefiniteObservable
  import Multicast
  import Synchronization

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The waiters of a ``DescriptorPoller`` that waits with epoll (Linux), by descriptor.
  ///
  /// Each descriptor that has waited stays in the epoll set, disarmed between its waits (a
  /// one-time wait is registered with `EPOLLONESHOT`), so that its next wait is one
  /// `epoll_ctl`, and a wake-up reports only the descriptors that are ready: its cost does not
  /// grow with the number of descriptors waiting, as a `poll` of each of them did.
  struct PollerState {
    var waiters: [UInt64: DescriptorPoller.Waiter] = [:]
    var nextID: UInt64 = 0
    var registrations: [Int32: Registration] = [:]
    // Tells a registration from an earlier one of the same descriptor number.
    var nextEpoch: UInt32 = 0
    // Waits on descriptors that epoll cannot watch (a regular file, some devices: `poll`
    // reports them ready at once), called on the thread's next round.
    var readyNow: [UInt64] = []
    // Set once the main thread takes the waits over from the poller's thread, which signals it
    // as it leaves (``DescriptorPoller/runOnMainThread()``).
    var handOver: DispatchSemaphore?
    // The one wait of the registration whose events last had no wait leave (a process
    // channel's watch, at each of its events), by the key of those events: the next event of
    // that key is handled with no hashing. Cleared by every change of a wait or a registration.
    var lastStaying: (key: UInt64, id: UInt64, waiter: DescriptorPoller.Waiter)?

    /// A descriptor's registration in the epoll set.
    struct Registration {
      // Carried, with the descriptor, by each event of this registration.
      var epoch: UInt32
      // The waits on the descriptor, oldest first (one, nearly always).
      var ids: [UInt64] = []
      // Whether the kernel may still hold the registration (the descriptor, closed since,
      // may have taken it away).
      var isInSet = false
    }
  }

  extension DescriptorPoller {
    /// The epoll set for a poller, with `wakeRead` in it.
    static func makeEpoll(waking wakeRead: Int32) -> Int32 {
      let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
      precondition(epoll >= 0, "DescriptorPoller: epoll_create1 failed: errno \(errno)")
      var event = epoll_event()
      event.events = EPOLLIN.rawValue
      event.data.u64 = wakeKey
      let added = epoll_ctl(epoll, EPOLL_CTL_ADD, wakeRead, &event)
      precondition(added == 0, "DescriptorPoller: epoll_ctl failed: errno \(errno)")
      return epoll
    }

    /// The key of the events of the wake-up pipe (a descriptor's key has its epoch above its
    /// number, and no epoch is all ones: see `register`).
    static var wakeKey: UInt64 { .max }

    func add(_ waiter: Waiter) -> UInt64 {
      let (id, isReadyNow) = state.withLock { state in
        state.lastStaying = nil
        state.nextID += 1
        let id = state.nextID
        state.waiters[id] = waiter
        var registration =
          state.registrations[waiter.fd] ?? PollerState.Registration(epoch: state.nextEpoch)
        registration.ids.append(id)
        guard register(waiter.fd, &registration, in: &state) else {
          registration.ids.removeLast()
          if registration.isInSet || !registration.ids.isEmpty {
            state.registrations[waiter.fd] = registration
          }
          state.readyNow.append(id)
          hasReadyNow.store(true, ordering: .releasing)
          return (id, true)
        }
        state.registrations[waiter.fd] = registration
        return (id, false)
      }
      if isReadyNow { wakeUp() }
      return id
    }

    /// Ends a wait: true when its `ready` had not been called and now never will be; false when
    /// it had already been taken to be called. A descriptor with no wait left leaves the epoll
    /// set here, before its owner may close it.
    @discardableResult
    func cancel(_ id: UInt64) -> Bool {
      let removed = state.withLock { state -> Waiter? in
        state.lastStaying = nil  // the waiter removed, returned, keeps what `ready` captured
        guard let waiter = state.waiters.removeValue(forKey: id) else { return nil }
        guard var registration = state.registrations[waiter.fd],
          let index = registration.ids.firstIndex(of: id)
        else {
          state.readyNow.removeAll { $0 == id }
          hasReadyNow.store(!state.readyNow.isEmpty, ordering: .releasing)
          return waiter
        }
        registration.ids.remove(at: index)
        if registration.ids.isEmpty {
          if registration.isInSet { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, waiter.fd, nil) }
          state.registrations[waiter.fd] = nil
        } else if !register(waiter.fd, &registration, in: &state) {
          // Cannot happen: the descriptor was in the set a moment ago. Its waits are ready now.
          state.readyNow += registration.ids
          hasReadyNow.store(true, ordering: .releasing)
          registration.ids = []
          state.registrations[waiter.fd] = registration
        } else {
          state.registrations[waiter.fd] = registration
        }
        return waiter
      }
      return removed != nil  // the waiter, and what `ready` captured, are released here
    }

    /// Arms `fd` in the epoll set for the events of its waits (one-time unless a wait stays);
    /// false when epoll cannot watch it (a regular file, a device: `EPERM`; a descriptor closed
    /// meanwhile: `EBADF`), whose waits are ready at once, as `poll` would say.
    private func register(
      _ fd: Int32, _ registration: inout PollerState.Registration, in state: inout PollerState
    ) -> Bool {
      var interest: UInt32 = 0
      var stays = false
      for id in registration.ids {
        guard let waiter = state.waiters[id] else { continue }
        interest |= UInt32(UInt16(bitPattern: waiter.events))
        stays = stays || waiter.stays
      }
      var event = epoll_event()
      event.events = interest | (stays ? 0 : EPOLLONESHOT.rawValue)
      if registration.isInSet {
        event.data.u64 = Self.key(fd, registration.epoch)
        if epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0 { return true }
        guard errno == ENOENT else { return false }
        // Closed and opened again since: the number is another file's now.
      }
      // A new registration: its events are told from any of an earlier one by the epoch.
      state.nextEpoch = state.nextEpoch == UInt32.max - 1 ? 0 : state.nextEpoch + 1
      registration.epoch = state.nextEpoch
      event.data.u64 = Self.key(fd, registration.epoch)
      if epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0 {
        guard errno == EEXIST, epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0 else {
          registration.isInSet = false
          return false
        }
      }
      registration.isInSet = true
      return true
    }

    /// The key of the events of `fd`'s registration `epoch`.
    private static func key(_ fd: Int32, _ epoch: UInt32) -> UInt64 {
      UInt64(epoch) << 32 | UInt64(UInt32(bitPattern: fd))
    }

    /// The key of the events of the main queue's handle (see ``runOnMainThread()``): like
    /// ``wakeKey``, no descriptor's key, whose epoch is never all ones.
    static var mainQueueKey: UInt64 { .max - 1 }

    /// The poller's loop, on its own thread, until ``runOnMainThread()`` takes the waits over.
    func run() {
      runLoop(mainQueue: nil)
    }

    /// Takes the waits over from the poller's thread, which ends, and waits for them here, on
    /// the main thread, beside the main queue's handle: each time the main queue has work,
    /// runs it here, as a run loop does. Never returns; throws before changing anything when
    /// called off the main thread, or a second time.
    func runOnMainThread() throws(MainLoopError) -> Never {
      guard cindefinite_is_main_thread() != 0 else { throw .notMainThread }
      let left = DispatchSemaphore(value: 0)
      let first = state.withLock { state in
        guard state.handOver == nil else { return false }
        state.handOver = left
        return true
      }
      guard first else { throw .alreadyRunning }
      // The poller's thread leaves its loop at this wake-up and signals `left`; what it had not
      // handled yet, epoll reports again here.
      var byte: UInt8 = 1
      _ = write(wakeWrite, &byte, 1)  // a full pipe already holds a wake-up
      left.wait()
      let mainQueue = _dispatch_get_main_queue_handle_4CF()
      var event = epoll_event()
      event.events = EPOLLIN.rawValue
      event.data.u64 = Self.mainQueueKey
      let added = epoll_ctl(epoll, EPOLL_CTL_ADD, mainQueue, &event)
      precondition(added == 0, "DescriptorPoller: epoll_ctl failed: errno \(errno)")
      runLoop(mainQueue: mainQueue)
      fatalError("unreachable: the main thread's loop never ends")
    }

    /// Whether the calling thread blocks any signal.
    private static func blocksASignal() -> Bool {
      var mask = sigset_t()
      pthread_sigmask(SIG_SETMASK, nil, &mask)
      return (1...64).contains { sigismember(&mask, $0) == 1 }
    }

    /// Waits and calls the waiters, for ever on the main thread (`mainQueue`: the main queue's
    /// handle, whose work it runs too); on the poller's thread (nil), until the main thread
    /// takes over.
    private func runLoop(mainQueue: Int32?) {
      pthread_setspecific(Self.threadMark, UnsafeRawPointer(bitPattern: 1))
      let capacity = 64
      let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
      defer { events.deallocate() }
      var readyNow: [UInt64] = []
      var noSignalBlocked = sigset_t()
      sigemptyset(&noSignalBlocked)
      // The main thread waits with no signal blocked, as `dispatchMain()` leaves it (in
      // `sigsuspend` with an empty mask): it takes the process's signals while it waits,
      // whatever mask the process started with (a child of a Dispatch thread blocks nearly all
      // of them), and a handler that runs interrupts the wait. When the thread blocks none as
      // the loop begins (a program started from a shell), a plain `epoll_wait` is that wait:
      // `epoll_pwait` would set the mask and put it back at every wake-up, 0.2 to 0.4 µs of the
      // kernel's time an event in `follow-vs-tail --paced`, up to a twentieth of its cost.
      let unblocksSignals = mainQueue != nil && Self.blocksASignal()
      while true {
        // The waits that epoll cannot watch first; then, if more came meanwhile, a look at the
        // others that does not wait. When there is none (the usual turn), no lock: the flag
        // says so, a wait added from another thread wakes the wait below, and none is added on
        // this thread before it.
        var timeout: Int32 = -1
        if hasReadyNow.load(ordering: .acquiring) {
          state.withLock { state in
            swap(&readyNow, &state.readyNow)
            hasReadyNow.store(false, ordering: .releasing)
          }
          for id in readyNow {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.ready(id)
          }
          readyNow.removeAll(keepingCapacity: true)
          timeout = hasReadyNow.load(ordering: .acquiring) ? 0 : -1
        }
        let count =
          unblocksSignals
          ? epoll_pwait(epoll, events, Int32(capacity), timeout, &noSignalBlocked)
          : epoll_wait(epoll, events, Int32(capacity), timeout)
        guard count > 0 else { continue }  // EINTR, or nothing yet
        var handOver: DispatchSemaphore?
        for index in 0..<Int(count) {
          let key = events[index].data.u64
          switch key {
          case Self.wakeKey:
            drainWakeUps()
            if mainQueue == nil { handOver = state.withLock { $0.handOver } }
          case Self.mainQueueKey:
            guard let mainQueue else { continue }
            // The count of wake-ups is cleared first: work that arrives while this runs writes
            // it again, and the next wait sees it.
            var wakeUps: eventfd_t = 0
            _ = eventfd_read(mainQueue, &wakeUps)
            _dispatch_main_queue_callback_4CF(nil)
          default:
            ready(key, Int16(truncatingIfNeeded: events[index].events))
          }
        }
        if let handOver {
          // The main thread takes over, once every event of this wait was handled (a one-time
          // wait's would not be reported again).
          pthread_setspecific(Self.threadMark, nil)
          handOver.signal()
          return
        }
      }
    }

    /// Calls the waits of the registration that `key` names whose events are in `revents`
    /// (an error or a hang-up is every wait's), after the lock; a one-time wait leaves, and the
    /// descriptor is armed again for those that remain.
    private func ready(_ key: UInt64, _ revents: Int16) {
      let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
      let epoch = UInt32(truncatingIfNeeded: key >> 32)
      let always = Int16(POLLERR | POLLHUP | POLLNVAL)
      // The first wait called apart: a descriptor nearly always has one, and no array is made.
      var more: [(UInt64, Waiter)] = []
      let first = state.withLock { state -> (UInt64, Waiter)? in
        if let last = state.lastStaying, last.key == key { return (last.id, last.waiter) }
        guard var registration = state.registrations[fd], registration.epoch == epoch,
          registration.isInSet
        else { return nil }  // a registration that a cancel or a later one ended
        var first: (UInt64, Waiter)?
        var stays = false
        var leaves = false
        for id in registration.ids {
          guard let waiter = state.waiters[id] else {
            leaves = true
            continue
          }
          guard (waiter.events | always) & revents != 0 else { continue }
          if first == nil { first = (id, waiter) } else { more.append((id, waiter)) }
          stays = stays || waiter.stays
          leaves = leaves || !waiter.stays
        }
        // A watch that stays (a process channel's, at each of its events) changes nothing: no
        // wait leaves, and the registration, not one-time, stays armed. It is left as it is,
        // with no copy of its list of waits to make.
        guard leaves || !stays else {
          if let first, more.isEmpty, registration.ids.count == 1 {
            state.lastStaying = (key, first.0, first.1)
          }
          return first
        }
        state.lastStaying = nil
        state.registrations[fd] = nil  // so that the list of waits is not shared when changed
        registration.ids.removeAll { id in
          guard let waiter = state.waiters[id] else { return true }
          guard (waiter.events | always) & revents != 0, !waiter.stays else { return false }
          state.waiters[id] = nil
          return true
        }
        if !stays && !registration.ids.isEmpty && !register(fd, &registration, in: &state) {
          state.readyNow += registration.ids
          hasReadyNow.store(true, ordering: .releasing)
          registration.ids = []
        }
        state.registrations[fd] = registration
        return first
      }
      guard let (id, waiter) = first else { return }
      waiter.ready(id)
      for (id, waiter) in more { waiter.ready(id) }
    }
  }
#endif
