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
/// `@unchecked Sendable`: `decoder`, `observer` and `source` are used only by `readAvailable`
/// and `release`, which Dispatch runs on the source's serial delivery queue one at a time;
/// `disconnect` touches only the immutable `cancelSource` and the thread-safe `holder` and
/// `cancellation`.
final class SourceReader<Decoder: ChunkDecoder>: @unchecked Sendable {
  private let holder: DescriptorHolder
  private let fd: Int32
  private let queue: DispatchQueue
  private var decoder: Decoder
  private var observer: DescriptorObserver<Decoder.Value>?
  private var source: DispatchSourceRead?
  private let cancelSource: DispatchSourceRead
  private let cancellation = CancellationFlag()

  /// Starts reading `fd`, a duplicate acquired from `holder`, which the reader now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue
  ) {
    self.holder = holder
    self.fd = fd
    self.queue = queue
    self.decoder = decoder
    self.observer = observer
    let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    self.source = source
    self.cancelSource = source
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: readAvailable)
    source.setCancelHandler(handler: release)
    source.activate()
    LiveResources.opened(.producerObservers)
    LiveResources.opened(.dispatchSources)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Runs when the descriptor is readable, on the delivery queue: reads and delivers until the
  /// descriptor has nothing more for now. Dispatch on Linux signals new data only once, so a
  /// handler that left bytes behind would never be called for them.
  @Sendable private func readAvailable() {
    guard let source, let observer else { return }
    let emit = { (value: Decoder.Value) -> Bool in
      guard !self.cancellation.isCancelled else { return false }
      observer.next(value)
      return true
    }
    var reads = 0
    while !cancellation.isCancelled {
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
        if !cancellation.isCancelled { observer.status(.endOfFile) }
        source.cancel()
        return
      case .success:
        reads += 1
      case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
        return
      case .failure(let errno):
        if !cancellation.isCancelled { observer.status(.failed(.readFailed(holder.fd, errno))) }
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

  /// Runs once after the source was cancelled, on the delivery queue: drops the observer and
  /// closes the duplicate, now that Dispatch no longer watches it.
  @Sendable private func release() {
    observer = nil
    source = nil
    System.close(fd)
    LiveResources.closed(.descriptors)
    LiveResources.closed(.dispatchSources)
  }

  /// The subscription's disconnect: stops delivery at once and cancels the source.
  func disconnect() {
    guard cancellation.cancel() else { return }
    holder.endUse()
    cancelSource.cancel()
  }
}
