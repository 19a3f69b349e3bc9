import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a pipe, socket, terminal or device for one subscription, a chunk at a time, until end
/// of file, failure or disconnect.
///
/// A Dispatch read source says when data arrives. Reading starts with a turn of its own as
/// well, because Dispatch cannot watch every descriptor: on Linux a device without a poll
/// operation, such as `/dev/null` or `/dev/zero`, is refused by epoll and its source never
/// fires, while `poll` says it is always ready. So each turn first asks `poll` whether a read
/// would block, reads one chunk if not, delivers its values, and asks for the next turn behind
/// the other work on the target queue (``DescriptorReader/continueAfterOthers(_:)``). Turns go
/// on while `poll` says ready, and stop at end of file (reported), at a failure (reported), or
/// when the descriptor has nothing for now, until the source fires again.
///
/// `decoder`, `source` and `isReading` are used only on the delivery queue (see
/// ``DescriptorReader``).
final class SourceReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>,
  @unchecked Sendable
{
  private var decoder: Decoder
  // The most bytes one read asks for: the most that one turn decodes and delivers.
  private let chunkSize: Int
  private var source: DispatchSourceRead?
  private let cancelSource: DispatchSourceRead
  // Whether a turn is running or waiting: the source's events meanwhile are left to it, as it
  // reads until the descriptor has nothing more for now.
  private var isReading = true

  /// Starts reading `fd`, a duplicate acquired from `holder`, which the reader now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    chunkSize: Int,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue,
    target: DispatchQueue?
  ) {
    self.decoder = decoder
    self.chunkSize = chunkSize
    let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    self.source = source
    self.cancelSource = source
    super.init(holder: holder, fd: fd, queue: queue, target: target, observer: observer)
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: dataArrived)
    source.setCancelHandler(handler: release)
    source.activate()
    LiveResources.opened(.dispatchSources)
    queue.async(execute: readTurn)
  }

  /// Runs when Dispatch says the descriptor is readable, on the delivery queue.
  @Sendable private func dataArrived() {
    guard !isReading else { return }
    isReading = true
    readTurn()
  }

  /// One turn, on the delivery queue: reads one chunk, unless a read would block, and delivers
  /// its values; then asks for the next turn. Dispatch on Linux signals new data only once, so
  /// the turns go on until the descriptor has nothing more: bytes left behind would never be
  /// announced again.
  @Sendable private func readTurn() {
    guard let source, !isCancelled, System.isReady(fd, for: Int16(POLLIN)) else {
      isReading = false
      return
    }
    let emit = { (value: Decoder.Value) -> Bool in self.deliver(value) }
    let result = withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) { buffer in
      System.read(fd, into: buffer).map { count in
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        if count > 0 { decoder.decode(chunk, emit: emit) }
        return count
      }
    }
    switch result {
    case .success(0):
      decoder.flush(emit: emit)
      report(.endOfFile)
      source.cancel()
    case .success:
      continueAfterOthers(readTurn)
    case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
      isReading = false
    case .failure(let errno):
      report(.failed(.readFailed(holder.fd, errno)))
      source.cancel()
    }
  }

  /// Runs once after the source was cancelled, on the delivery queue: Dispatch no longer
  /// watches the duplicate, so it can be closed.
  @Sendable override func release() {
    source = nil
    super.release()
    LiveResources.closed(.dispatchSources)
  }

  override func stop() {
    cancelSource.cancel()
  }
}
