import IndefiniteObservable
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Waits for descriptors to be readable or writable, on a thread of its own, and calls each
/// waiter once (``wait(_:for:_:)``: what the descriptor streams use for each turn)
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
/// How it waits (`DescriptorPoller+Epoll.swift`, `DescriptorPoller+Poll.swift`): on Linux, with
/// an epoll set that keeps each descriptor's registration from one wait to the next, so that a
/// wake-up costs the same with a thousand idle descriptors as with none
/// (`PipeCostTimingTests`); elsewhere with `poll` of every waiting descriptor, whose cost grows
/// with their number.
///
/// - Threading: ``wait(_:for:_:)``, ``watch(_:for:_:)`` and ``cancel(_:)`` may be called from any thread. A waiter's
///   `ready` runs on the poller's thread, with no lock held; it may read the descriptor (a
///   reader's turn: one chunk, bounded) and hand the values on, and must not block.
/// - Lifetime: one poller per process, and its thread, live as long as the process, unless
///   ``runOnMainThread()`` (`MainLoop.run()`) moves the waits to the main thread: the poller's
///   thread then ends, and "the poller's thread" above is the main thread.
final class DescriptorPoller: Sendable {
  /// The process's poller, started when first used.
  static let shared = DescriptorPoller()

  struct Waiter {
    let fd: Int32
    let events: Int16
    // Whether the wait stays after `ready` is called (``watch(_:for:_:)``).
    let stays: Bool
    let ready: @Sendable (UInt64) -> Void
  }

  let state = LockedState(PollerState())
  // A pipe whose read end the thread waits for beside the waiters: a byte written to it makes
  // the thread look at the waiters again.
  let wakeRead: Int32
  let wakeWrite: Int32
  #if os(Linux)
    // The epoll set of the waiting descriptors, and of `wakeRead`.
    let epoll: Int32
    // Whether `state.readyNow` holds a wait: written under the lock by each change of the list,
    // read with no lock by the thread before it takes the list, so that a turn with none (the
    // usual one) takes no lock for it. A wait added from another thread after the thread read
    // false wakes its next wait (``wakeUp()``), which looks again.
    let hasReadyNow = Atomic(false)
  #endif

  private init() {
    var ends: [Int32] = [0, 0]
    precondition(pipe(&ends) == 0, "DescriptorPoller: pipe failed: errno \(errno)")
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    wakeRead = ends[0]
    wakeWrite = ends[1]
    #if os(Linux)
      epoll = Self.makeEpoll(waking: wakeRead)
    #endif
    let context = Unmanaged.passRetained(self).toOpaque()
    #if canImport(Darwin)
      var thread: pthread_t?
      let started = pthread_create(
        &thread, nil,
        {
          Unmanaged<DescriptorPoller>.fromOpaque($0).takeRetainedValue().run()
          return nil
        }, context)
      precondition(started == 0, "DescriptorPoller: pthread_create failed: \(started)")
      pthread_detach(thread!)
    #else
      var thread = pthread_t()
      let started = pthread_create(
        &thread, nil,
        {
          Unmanaged<DescriptorPoller>.fromOpaque($0!).takeRetainedValue().run()
          return nil
        }, context)
      precondition(started == 0, "DescriptorPoller: pthread_create failed: \(started)")
      pthread_detach(thread)
    #endif
  }

  /// Calls `ready` once, on the poller's thread, with the wait's identifier, when `fd` has one
  /// of `events` (`POLLIN`: data or end of file; `POLLOUT`: room to write), an error, or was
  /// closed under the wait (a descriptor that cannot be waited for, such as a regular file, is
  /// ready at once); returns the wait's identifier for ``cancel(_:)``.
  func wait(
    _ fd: Int32, for events: Int16, _ ready: @escaping @Sendable (UInt64) -> Void
  ) -> UInt64 {
    add(Waiter(fd: fd, events: events, stays: false, ready: ready))
  }

  /// Calls `ready` on the poller's thread each time `fd` has one of `events`, for the life of
  /// the process: for a descriptor that is never closed (a ``ProcessChannel``'s), with no new
  /// wait to make after each call. `ready` must read what is there, or the next wait reports
  /// it again at once.
  func watch(_ fd: Int32, for events: Int16, _ ready: @escaping @Sendable () -> Void) {
    _ = add(Waiter(fd: fd, events: events, stays: true, ready: { _ in ready() }))
  }

  /// Makes the thread look at the waiters again; nothing to do on the thread itself, which
  /// looks at them before it waits again.
  func wakeUp() {
    guard pthread_getspecific(Self.threadMark) == nil else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)  // a full pipe already holds a wake-up
  }

  /// Reads the bytes that woke the thread.
  func drainWakeUps() {
    var bytes = (0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64)
    let wakeRead = self.wakeRead
    while withUnsafeMutableBytes(of: &bytes, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
  }

  /// Set on the poller's thread only: tells ``wakeUp()`` that it runs there.
  static let threadMark: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "DescriptorPoller: pthread_key_create failed: \(status)")
    return key
  }()
}
