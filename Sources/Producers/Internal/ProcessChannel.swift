import Dispatch
import IndefiniteObservable

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
/// with no thread switch. `serially` is what a serial queue's `sync` was here, at the cost of a
/// lock taken twice: `DispatchQueue.sync` allocated twice an event on Linux (the closure's
/// context and the block given to libdispatch: 2 of `follow`'s 9 `malloc` a paced line;
/// CONTRIBUTING.md, "Platform facts"). (A Dispatch read source costs one more thread switch: its manager
/// thread returns from `epoll_wait` and wakes a worker of the source's queue.)
final class ProcessChannel: Sendable {
  private let fd: Int32
  private let receive: @Sendable (UnsafeRawBufferPointer) -> Void
  /// Whether a thread runs the channel's work, and the threads waiting for their turn, first
  /// come first.
  private let turns = LockedState<(isTaken: Bool, waiting: [DispatchSemaphore])>((false, []))

  /// Marks the thread that runs a channel's work, with that channel (``isCurrent``).
  private static let running: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "ProcessChannel: pthread_key_create failed: \(status)")
    return key
  }()

  /// Starts reading `fd`, a non-blocking descriptor.
  init(fd: Int32, receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
    self.fd = fd
    self.receive = receive
    waitForData()
  }

  /// Each time the descriptor has data, reads it all on the poller's thread, in the channel's
  /// turn. (A watch is level-triggered: a descriptor that is still readable is reported again at
  /// once, so data that arrives after the read is not missed.) The channel lives as long as the
  /// process, and so does its watch.
  private func waitForData() {
    DescriptorPoller.shared.watch(fd, for: Int16(POLLIN)) { [self] in
      serially { Self.drain(fd, into: receive) }
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
    precondition(!isCurrent, "ProcessChannel.serially called from the channel's own work")
    let wait = turns.withLock { turns -> DispatchSemaphore? in
      guard turns.isTaken else {
        turns.isTaken = true
        return nil
      }
      let wait = DispatchSemaphore(value: 0)
      turns.waiting.append(wait)
      return wait
    }
    // Handed the turn by the thread before, which left it taken.
    wait?.wait()
    let before = pthread_getspecific(Self.running)
    pthread_setspecific(Self.running, Unmanaged.passUnretained(self).toOpaque())
    defer {
      pthread_setspecific(Self.running, before)
      let next = turns.withLock { turns -> DispatchSemaphore? in
        guard !turns.waiting.isEmpty else {
          turns.isTaken = false
          return nil
        }
        return turns.waiting.removeFirst()
      }
      next?.signal()
    }
    return body()
  }

  /// Whether the caller runs the channel's work (in `receive`, or code it called).
  var isCurrent: Bool {
    pthread_getspecific(Self.running) == Unmanaged.passUnretained(self).toOpaque()
  }

  /// Reads and hands on everything waiting in the descriptor now, in the channel's turn, and
  /// returns once that is done: whatever was written before this call has been received. Not
  /// from the channel's own work (see ``isCurrent``).
  func drainNow() {
    serially { Self.drain(fd, into: receive) }
  }

  /// Reads until the descriptor has nothing more for now: until a read comes back short of
  /// the buffer, which took all there was (a pipe and inotify hand over what they hold, up to
  /// the size asked for), with no last read to see nothing (`EAGAIN`). What arrives after that
  /// read, or what it left (inotify stops short of an event that does not fit), is reported by
  /// the poller's next wait, which sees the descriptor still readable.
  ///
  /// The buffer, 1,024 bytes, is on the stack: `withUnsafeTemporaryAllocation` allocates on the
  /// heap above that size on Linux, which was a `malloc` and a `free` for each event. It holds
  /// at least 3 inotify events of the longest name (16 + 256 bytes), and 64 of a watched file.
  private static func drain(
    _ fd: Int32, into receive: (UnsafeRawBufferPointer) -> Void
  ) {
    withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 8) { buffer in
      while case .success(let count) = System.read(fd, into: buffer), count > 0 {
        receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        guard count == buffer.count else { return }
      }
    }
  }
}
