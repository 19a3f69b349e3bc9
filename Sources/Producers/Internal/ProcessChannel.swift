import Dispatch

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a descriptor that this module keeps for the life of the process (the signal self-pipe,
/// the inotify instance) and hands each chunk read to `receive`, on one serial queue.
///
/// Such a descriptor is shared by every stream of its kind and never closed, so it is read with
/// one wait of its own, made once, not with the per-subscription readers of
/// ``FileDescriptors``, which close their descriptor when the subscription ends.
///
/// The wait is the package's one: ``DescriptorPoller``. Its thread returns from its wait and reads
/// the descriptor itself, inside `queue.sync`, which runs the block on that thread when the queue
/// is idle: so `receive` runs on the queue (serialized with the other work of the queue, such as
/// the directory checks of a file watch) with no thread switch. (A Dispatch read source costs
/// one more: its manager thread returns from `epoll_wait` and wakes a worker of the source's
/// queue. The paced floor of `follow` measured 67 µs a change with a read source and 40 µs with
/// a `poll` thread, 4.8 and 2.5 context switches; Benchmarks/README.md.)
final class ProcessChannel: Sendable {
  private let fd: Int32
  /// The serial queue on which `receive` runs.
  let queue: DispatchQueue
  private let receive: @Sendable (UnsafeRawBufferPointer) -> Void
  // Set on `queue`, to tell whether a caller runs on it.
  private let key = DispatchSpecificKey<UInt8>()

  /// Starts reading `fd`, a non-blocking descriptor, for a serial queue labelled `label`.
  init(fd: Int32, label: String, receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
    self.fd = fd
    self.receive = receive
    let queue = DispatchQueue(label: label)
    self.queue = queue
    queue.setSpecific(key: key, value: 1)
    waitForData()
  }

  /// Each time the descriptor has data, reads it all on the queue, on the poller's thread.
  /// (A watch is level-triggered: a descriptor that is still readable is reported again at
  /// once, so data that arrives after the read is not missed.) The channel lives as long as the process, and so does its watch.
  private func waitForData() {
    DescriptorPoller.shared.watch(fd, for: Int16(POLLIN)) { [self] in
      queue.sync { Self.drain(fd, into: receive) }
    }
  }

  /// Whether the caller runs on the channel's queue (in `receive`, or code it called).
  var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil }

  /// Reads and hands on everything waiting in the descriptor now, on the channel's queue, and
  /// returns once that is done: whatever was written before this call has been received. Not
  /// on the channel's queue itself (see ``isCurrent``), which would wait for itself.
  func drainNow() {
    queue.sync { Self.drain(fd, into: receive) }
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
