import Dispatch

/// Reads a descriptor that this module keeps for the life of the process (the signal self-pipe,
/// the inotify instance) and hands each chunk read to `receive`, on one serial queue.
///
/// Such a descriptor is shared by every stream of its kind and never closed, so it is read with
/// one Dispatch read source made once, not with the per-subscription readers of
/// ``FileDescriptors``, which close their descriptor when the subscription ends.
final class ProcessChannel: Sendable {
  private let fd: Int32
  /// The serial queue on which the descriptor is read and `receive` runs.
  let queue: DispatchQueue
  private let receive: @Sendable (UnsafeRawBufferPointer) -> Void
  // Kept only so that the source lives as long as the channel; never used after `init`, so no
  // two threads ever touch it (the Dispatch overlay does not mark sources `Sendable`).
  private nonisolated(unsafe) let source: any DispatchSourceRead
  // Set on `queue`, to tell whether a caller runs on it.
  private let key = DispatchSpecificKey<UInt8>()

  /// Starts reading `fd`, a non-blocking descriptor, on a serial queue labelled `label`.
  init(fd: Int32, label: String, receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
    self.fd = fd
    self.receive = receive
    let queue = DispatchQueue(label: label)
    self.queue = queue
    queue.setSpecific(key: key, value: 1)
    let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    source.setEventHandler { [fd, receive] in Self.drain(fd, into: receive) }
    source.activate()
    self.source = source
  }

  /// Whether the caller runs on the channel's queue (in `receive`, or code it called).
  var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil }

  /// Reads and hands on everything waiting in the descriptor now, on the channel's queue, and
  /// returns once that is done: whatever was written before this call has been received. Not
  /// on the channel's queue itself (see ``isCurrent``), which would wait for itself.
  func drainNow() {
    queue.sync { Self.drain(fd, into: receive) }
  }

  /// Reads until the descriptor has nothing more for now. Dispatch on Linux signals new data
  /// only once, so a handler that left bytes behind would never be called for them.
  private static func drain(
    _ fd: Int32, into receive: (UnsafeRawBufferPointer) -> Void
  ) {
    withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
      while case .success(let count) = System.read(fd, into: buffer), count > 0 {
        receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      }
    }
  }
}
