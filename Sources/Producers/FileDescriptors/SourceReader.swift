import Dispatch

/// Reads a pipe, socket, terminal or other pollable descriptor for one subscription, with a
/// Dispatch read source, until end of file, failure or disconnect.
///
/// `@unchecked Sendable`: `decoder`, `observer` and `source` are used only by `readAvailable`
/// and `release`, which Dispatch runs on the source's serial delivery queue one at a time;
/// `disconnect` touches only the immutable `cancelSource` and the thread-safe `cancellation`.
final class SourceReader<Decoder: ChunkDecoder>: @unchecked Sendable {
  private let holder: DescriptorHolder
  private var decoder: Decoder
  private var observer: DescriptorObserver<Decoder.Value>?
  private var source: DispatchSourceRead?
  private let cancelSource: DispatchSourceRead
  private let cancellation = CancellationFlag()

  /// Starts reading; the caller has taken a lease on `holder`, which `release` returns.
  init(
    holder: DescriptorHolder,
    decoder: Decoder,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue
  ) {
    self.holder = holder
    self.decoder = decoder
    self.observer = observer
    let source = DispatchSource.makeReadSource(fileDescriptor: holder.fd, queue: queue)
    self.source = source
    self.cancelSource = source
    source.setEventHandler(handler: readAvailable)
    source.setCancelHandler(handler: release)
    source.activate()
  }

  /// Runs when the descriptor is readable, on the delivery queue: one read, then delivery.
  @Sendable private func readAvailable() {
    guard let source, let observer, !cancellation.isCancelled else { return }
    let emit = { (value: Decoder.Value) -> Bool in
      guard !self.cancellation.isCancelled else { return false }
      observer.next(value)
      return true
    }
    let result = withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) { buffer in
      System.read(holder.fd, into: buffer).map { count in
        if count > 0 { decoder.decode(UnsafeRawBufferPointer(rebasing: buffer[..<count]), emit: emit) }
        return count
      }
    }
    switch result {
    case .success(0):
      decoder.flush(emit: emit)
      if !cancellation.isCancelled { observer.status(.endOfFile) }
      source.cancel()
    case .success:
      break
    case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
      break
    case .failure(let errno):
      if !cancellation.isCancelled { observer.status(.failed(.readFailed(holder.fd, errno))) }
      source.cancel()
    }
  }

  /// Runs once after the source was cancelled, on the delivery queue: drops the observer and
  /// returns the lease (closing an owned descriptor now that no source watches it).
  @Sendable private func release() {
    observer = nil
    source = nil
    holder.release()
  }

  /// The subscription's disconnect: stops delivery at once and cancels the source.
  func disconnect() {
    guard cancellation.cancel() else { return }
    cancelSource.cancel()
  }
}

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
