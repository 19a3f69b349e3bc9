import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Waits for descriptors to be readable or writable, with `poll` on a thread of its own, and
/// calls each waiter once (``wait(_:for:_:)``: what the descriptor streams use for each turn)
/// or each time (``watch(_:for:_:)``: the channels of the process's own descriptors,
/// ``ProcessChannel``, inotify and the signal pipe), in place of Dispatch read and write sources.
///
/// Why not Dispatch: on Linux, libdispatch's epoll loop reads a freed muxnote and crashes the
/// process (`_dispatch_event_loop_drain`, SIGSEGV) when read sources on pipes are suspended and
/// resumed, or cancelled while their descriptor stays readable. The test
/// `manyPipeStreamsEndingWhileTheirDescriptorStaysReadableKeepDispatchWell` crashed its process
/// in 3 runs of 3 with a reader that suspended its source during its turns, and in 3 of 3 with
/// one that made a source for each wait and cancelled it in its own event handler;
/// `.ci/dispatch-reproductions/SuspendedReadSource.swift` crashes the same way with nothing of
/// this package. Here a wait is an entry in a table: cancelling it removes the entry under the
/// lock, and readiness reported for an entry that is gone is ignored, so a descriptor closed
/// (or its number reused) after its wait was cancelled is never mistaken for it.
///
/// - Threading: ``wait(_:for:_:)``, ``watch(_:for:_:)`` and ``cancel(_:)`` may be called from any thread. A waiter's
///   `ready` runs on the poller's thread, with no lock held; it may read the descriptor (a
///   reader's turn: one chunk, bounded) and hand the values on, and must not block.
/// - Lifetime: one poller per process, and its thread, live as long as the process.
final class DescriptorPoller: Sendable {
  /// The process's poller, started when first used.
  static let shared = DescriptorPoller()

  private struct Waiter {
    let fd: Int32
    let events: Int16
    // Whether the wait stays after `ready` is called (``watch(_:for:_:)``).
    let stays: Bool
    let ready: @Sendable (UInt64) -> Void
  }

  private struct State {
    var waiters: [UInt64: Waiter] = [:]
    var nextID: UInt64 = 0
    // Counts the changes to `waiters`: the thread lists them again for `poll` only after one.
    var generation: UInt64 = 0
  }

  private let state = LockedState(State())
  // A pipe whose read end the thread polls beside the waiters: a byte written to it makes the
  // thread poll again, with the waiters of now.
  private let wakeRead: Int32
  private let wakeWrite: Int32

  private init() {
    var ends: [Int32] = [0, 0]
    precondition(pipe(&ends) == 0, "DescriptorPoller: pipe failed: errno \(errno)")
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    wakeRead = ends[0]
    wakeWrite = ends[1]
    let context = Unmanaged.passRetained(self).toOpaque()
    #if canImport(Darwin)
      var thread: pthread_t?
      let started = pthread_create(
        &thread, nil,
        { Unmanaged<DescriptorPoller>.fromOpaque($0).takeRetainedValue().run() }, context)
      precondition(started == 0, "DescriptorPoller: pthread_create failed: \(started)")
      pthread_detach(thread!)
    #else
      var thread = pthread_t()
      let started = pthread_create(
        &thread, nil,
        { Unmanaged<DescriptorPoller>.fromOpaque($0!).takeRetainedValue().run() }, context)
      precondition(started == 0, "DescriptorPoller: pthread_create failed: \(started)")
      pthread_detach(thread)
    #endif
  }

  /// Calls `ready` once, on the poller's thread, with the wait's identifier, when `fd` has one
  /// of `events` (`POLLIN`: data or end of file; `POLLOUT`: room to write), an error, or was
  /// closed under the wait; returns the wait's identifier for ``cancel(_:)``.
  func wait(
    _ fd: Int32, for events: Int16, _ ready: @escaping @Sendable (UInt64) -> Void
  ) -> UInt64 {
    add(Waiter(fd: fd, events: events, stays: false, ready: ready))
  }

  /// Calls `ready` on the poller's thread each time `fd` has one of `events`, for the life of
  /// the process: for a descriptor that is never closed (a ``ProcessChannel``'s), with no new
  /// wait to make after each call. `ready` must read what is there, or the next `poll` reports
  /// it again at once.
  func watch(_ fd: Int32, for events: Int16, _ ready: @escaping @Sendable () -> Void) {
    _ = add(Waiter(fd: fd, events: events, stays: true, ready: { _ in ready() }))
  }

  private func add(_ waiter: Waiter) -> UInt64 {
    let id = state.withLock { state in
      state.nextID += 1
      state.generation += 1
      state.waiters[state.nextID] = waiter
      return state.nextID
    }
    wakeUp()
    return id
  }

  /// Ends a wait: true when its `ready` had not been called and now never will be; false when it
  /// had already been taken to be called.
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

  /// Makes the thread poll again with the waiters of now; nothing to do on the thread itself
  /// (a waiter's `ready` waiting again, as a reader does for its next turn), which takes the
  /// waiters anew before its next `poll`.
  private func wakeUp() {
    guard pthread_getspecific(Self.threadMark) == nil else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)  // a full pipe already holds a wake-up
  }

  /// Set on the poller's thread only: tells ``wakeUp()`` that it runs there.
  private static let threadMark: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "DescriptorPoller: pthread_key_create failed: \(status)")
    return key
  }()

  private func run() -> Never {
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
      if entries[0].revents != 0 {
        var bytes = (0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64)
        let wakeRead = self.wakeRead
        while withUnsafeMutableBytes(of: &bytes, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {
        }
      }
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
