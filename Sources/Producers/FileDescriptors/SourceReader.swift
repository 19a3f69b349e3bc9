import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a pipe, socket, terminal or other pollable descriptor for one subscription, with a
/// Dispatch read source, until end of file, failure or disconnect.
///
/// `decoder` and `source` are used only on the delivery queue (see ``DescriptorReader``).
final class SourceReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>,
  @unchecked Sendable
{
  private var decoder: Decoder
  private var source: DispatchSourceRead?
  private let cancelSource: DispatchSourceRead

  /// Starts reading `fd`, a duplicate acquired from `holder`, which the reader now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue
  ) {
    self.decoder = decoder
    let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    self.source = source
    self.cancelSource = source
    super.init(holder: holder, fd: fd, queue: queue, observer: observer)
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: readAvailable)
    source.setCancelHandler(handler: release)
    source.activate()
    LiveResources.opened(.dispatchSources)
  }

  /// Runs when the descriptor is readable, on the delivery queue: reads and delivers until the
  /// descriptor has nothing more for now. Dispatch on Linux signals new data only once, so a
  /// handler that left bytes behind would never be called for them.
  @Sendable private func readAvailable() {
    guard let source else { return }
    let emit = { (value: Decoder.Value) -> Bool in self.deliver(value) }
    var reads = 0
    while !isCancelled {
      let result = withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) { buffer in
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
        return
      case .success:
        reads += 1
      case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
        return
      case .failure(let errno):
        report(.failed(.readFailed(holder.fd, errno)))
        source.cancel()
        return
      }
      guard System.isReady(fd, for: Int16(POLLIN)) else { return }
      // A writer faster than the reader: let other work on the queue run, then go on.
      if reads == 16 {
        queue.async(execute: readAvailable)
        return
      }
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
