import Dispatch
import IndefiniteObservable
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a descriptor that this module keeps for the life of the process (the signal self-pipe,
/// the inotify instance) and hands each chunk read to `receive`, one thread at a time.
///
/// Such a descriptor is shared by every stream of its kind and never closed, so it is read with
/// one wait of its own, made once, not with the per-subscription readers of
/// ``FileDescriptors``, which close their descriptor when the subscription ends.
///
/// The wait is the package's one: ``DescriptorPoller``. Its thread returns from its wait and reads
/// the descriptor itself, inside ``serially(_:)``: so `receive` runs on the thread that read
/// (serialized with the channel's other work, such as the directory checks of a file watch),
/// with no thread switch. `serially` is what a serial queue's `sync` was here, at the cost of two
/// atomic exchanges when no other thread contends for the turn (the usual case): `DispatchQueue.sync` allocated twice an event on Linux (the closure's
/// context and the block given to libdispatch: 2 of `follow`'s 9 `malloc` a paced line;
/// CONTRIBUTING.md, "Platform facts"). (A Dispatch read source costs one more thread switch: its manager
/// thread returns from `epoll_wait` and wakes a worker of the source's queue.)
final class ProcessChannel: Sendable {
  private let fd: Int32
  private let receive: @Sendable (UnsafeRawBufferPointer) -> Void
  private let isCut: @Sendable (UnsafeRawBufferPointer) -> Bool
  /// Whether a thread runs the channel's work: ``free``, ``taken``, or ``takenWithWaiters``
  /// (threads wait in `waiting`). A turn that no thread contends for is taken and given back
  /// with one compare-and-exchange each, and no lock; the lock is taken only when a thread must
  /// wait, or hand the turn to one that waits.
  private let turn = Atomic<Int>(ProcessChannel.free)
  /// The threads waiting for their turn, first come first; changed only under this lock, with
  /// `turn` at ``takenWithWaiters`` whenever it is not empty.
  private let waiting = LockedState<[DispatchSemaphore]>([])
  /// The thread that runs the channel's work now (`pthread_self()`), for ``isCurrent``; 0 when
  /// none does. Written only by that thread, at the start and the end of its turn.
  private let runner = Atomic<UInt>(0)

  private static var free: Int { 0 }
  private static var taken: Int { 1 }
  private static var takenWithWaiters: Int { 2 }

  /// Starts reading `fd`, a non-blocking descriptor. `isCut` says of a read whether it may have
  /// come in the middle of something the descriptor gets in one piece that the reader cannot
  /// take in two (inotify's two halves of a rename): then the descriptor is read again before
  /// the read is handed on (see ``drain(_:isCut:into:)``).
  init(
    fd: Int32, isCut: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool = { _ in false },
    receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
  ) {
    self.fd = fd
    self.isCut = isCut
    self.receive = receive
    waitForData()
  }

  /// Each time the descriptor has data, reads it all on the poller's thread, in the channel's
  /// turn. (A watch is level-triggered: a descriptor that is still readable is reported again at
  /// once, so data that arrives after the read is not missed.) The channel lives as long as the
  /// process, and so does its watch.
  private func waitForData() {
    DescriptorPoller.shared.watch(fd, for: Int16(POLLIN)) { [self] in
      serially { Self.drain(fd, isCut: isCut, into: receive) }
    }
  }

  /// Runs `body` on this thread, once no other thread runs the channel's work, and keeps the
  /// others out until it returns: the channel's work (reading and handing on what was read, and
  /// what its users run here) runs one thread at a time, in the order the threads came.
  ///
  /// A thread that finds the channel taken waits (a read of the channel, or a user's work, is
  /// short: none blocks). No lock of ours is held while `body` runs: only a flag, which the
  /// waiting threads wait on. Not from the channel's own work (see ``isCurrent``), which would
  /// wait for itself: that traps.
  func serially<Result>(_ body: () -> Result) -> Result {
    let thread = Self.currentThread
    precondition(
      runner.load(ordering: .relaxed) != thread,
      "ProcessChannel.serially called from the channel's own work")
    if !turn.compareExchange(expected: Self.free, desired: Self.taken, ordering: .acquiring)
      .exchanged
    {
      waitForTurn()
    }
    runner.store(thread, ordering: .relaxed)
    defer {
      runner.store(0, ordering: .relaxed)
      if !turn.compareExchange(expected: Self.taken, desired: Self.free, ordering: .releasing)
        .exchanged
      {
        handOverTurn()
      }
    }
    return body()
  }

  /// Waits until the thread before hands this one the turn, or takes it if it was given back
  /// meanwhile.
  private func waitForTurn() {
    let wait = waiting.withLock { waiting -> DispatchSemaphore? in
      while true {
        let (exchanged, found) = turn.compareExchange(
          expected: Self.free, desired: Self.taken, ordering: .acquiring)
        if exchanged { return nil }
        // Taken: marked as having waiters (under this lock, with the semaphore appended before
        // the lock is let go), so that the thread that has it hands it over rather than free it.
        if found == Self.takenWithWaiters
          || turn.compareExchange(
            expected: Self.taken, desired: Self.takenWithWaiters, ordering: .relaxed
          ).exchanged
        {
          let wait = DispatchSemaphore(value: 0)
          waiting.append(wait)
          return wait
        }
      }
    }
    // Handed the turn by the thread before, which left it taken (its semaphore orders the two).
    wait?.wait()
  }

  /// Hands the turn to the first thread waiting for it, which finds it taken: `turn` was at
  /// ``takenWithWaiters``, so there is one.
  private func handOverTurn() {
    let next = waiting.withLock { waiting -> DispatchSemaphore in
      let next = waiting.removeFirst()
      turn.store(waiting.isEmpty ? Self.taken : Self.takenWithWaiters, ordering: .releasing)
      return next
    }
    next.signal()
  }

  /// Whether the caller runs the channel's work (in `receive`, or code it called).
  var isCurrent: Bool {
    runner.load(ordering: .relaxed) == Self.currentThread
  }

  /// The calling thread's identity, never 0.
  private static var currentThread: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }

  /// Reads and hands on everything waiting in the descriptor now, in the channel's turn, and
  /// returns once that is done: whatever was written before this call has been received. Not
  /// from the channel's own work (see ``isCurrent``).
  func drainNow() {
    serially { Self.drain(fd, isCut: isCut, into: receive) }
  }

  /// Reads until the descriptor has nothing more for now: until a read comes back with room
  /// left for the largest inotify event, which took all there was (a pipe and inotify hand over
  /// what they hold, up to the size asked for, and inotify only whole events), with no last read
  /// to see nothing (`EAGAIN`). What arrives after that read is reported by the poller's next
  /// wait.
  ///
  /// The buffer, 1,024 bytes, is on the stack: `withUnsafeTemporaryAllocation` allocates on the
  /// heap above that size on Linux, which was a `malloc` and a `free` for each event. It holds
  /// at least 3 inotify events of the longest name (16 + 256 bytes), and 64 of a watched file.
  ///
  /// What a burst fills the buffer with is handed on whole, in one call, with the read that
  /// ends it: so a receiver sees the events that came together together (inotify's two halves
  /// of a rename, a file that came and went), wherever the reads cut them. A read with less room
  /// left than the largest event may have stopped short of one, so it counts as full. Only a
  /// full read allocates, for the bytes it carries.
  ///
  /// A read that `isCut` says may have come in the middle of one piece is carried on the same
  /// way, for one more read: inotify queues the two halves of a rename one after the other, and
  /// a read between them (by a reader that was awake already) took the first alone. The next
  /// read takes the second, queued meanwhile; or finds nothing (a move to a directory not
  /// watched), and the first is handed on alone.
  static func drain(
    _ fd: Int32, isCut: (UnsafeRawBufferPointer) -> Bool,
    into receive: (UnsafeRawBufferPointer) -> Void
  ) {
    // An inotify event's header and the longest name, with its terminating zero.
    let largestEvent = 16 + 256
    withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 8) { buffer in
      // Nil until a read fills the buffer (the usual read does not: nothing to release).
      var carried: [UInt8]?
      while case .success(let count) = System.read(fd, into: buffer), count > 0 {
        let read = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        let full = count > buffer.count - largestEvent || isCut(read)
        guard full || carried != nil else { return receive(read) }
        if carried == nil { carried = [] }
        carried?.append(contentsOf: read)
        if !full { break }
      }
      carried?.withUnsafeBytes(receive)
    }
  }
}
