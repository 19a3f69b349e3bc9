#if !os(Linux)
  import IndefiniteObservable

  #if canImport(Darwin)
    import Darwin
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The waiters of a ``DescriptorPoller`` that waits with `poll` (every platform but Linux).
  struct PollerState {
    var waiters: [UInt64: DescriptorPoller.Waiter] = [:]
    var nextID: UInt64 = 0
    // Counts the changes to `waiters`: the thread lists them again for `poll` only after one.
    var generation: UInt64 = 0
  }

  extension DescriptorPoller {
    func add(_ waiter: Waiter) -> UInt64 {
      let id = state.withLock { state in
        state.nextID += 1
        state.generation += 1
        state.waiters[state.nextID] = waiter
        return state.nextID
      }
      wakeUp()
      return id
    }

    /// Ends a wait: true when its `ready` had not been called and now never will be; false when
    /// it had already been taken to be called.
    @discardableResult
    func cancel(_ id: UInt64) -> Bool {
      let removed = state.withLock { state in
        let removed = state.waiters.removeValue(forKey: id)
        if removed != nil { state.generation += 1 }
        return removed
      }
      guard removed != nil else { return false }
      wakeUp()  // so that the thread stops polling a descriptor that may be closed next
      return true  // the waiter, and what `ready` captured, are released here, after the lock
    }

    /// The poller's loop, on its own thread; never returns.
    func run() {
      pthread_setspecific(Self.threadMark, UnsafeRawPointer(bitPattern: 1))
      var entries: [pollfd] = []
      var ids: [UInt64] = []
      var listed: UInt64?  // the generation of the waiters that `entries` lists
      while true {
        // The descriptors and identifiers only: the thread keeps no waiter (nor what its `ready`
        // captured) alive while it polls. Listed again only when the waiters changed (`poll`
        // sets each entry's `revents` anew).
        state.withLock { state in
          guard listed != state.generation else { return }
          listed = state.generation
          entries.removeAll(keepingCapacity: true)
          ids.removeAll(keepingCapacity: true)
          entries.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
          for (id, waiter) in state.waiters {
            ids.append(id)
            entries.append(pollfd(fd: waiter.fd, events: waiter.events, revents: 0))
          }
        }
        guard poll(&entries, nfds_t(entries.count), -1) > 0 else { continue }  // EINTR
        if entries[0].revents != 0 { drainWakeUps() }
        for (index, id) in ids.enumerated() where entries[index + 1].revents != 0 {
          // Taken out under the lock (a one-time wait, removed), called after it: a cancelled
          // wait is no longer there.
          state.withLock { state -> Waiter? in
            guard let waiter = state.waiters[id] else { return nil }
            guard !waiter.stays else { return waiter }
            state.generation += 1
            return state.waiters.removeValue(forKey: id)
          }?.ready(id)
        }
      }
    }
  }
#endif
