import Dispatch
import IndefiniteObservable

/// Reads a regular file for one subscription: to its end at once, then again each time the
/// refill trigger fires, from where it stopped (or from the start, after a truncation: the
/// file no longer holds the bytes read before the position, see ``FileCheckpoint``).
///
/// A regular file is always "readable" to Dispatch, so a read source would spin at end of file;
/// this reader runs read passes on the delivery queue instead, and uses `pread` with its own
/// offset so it never moves the descriptor's offset.
///
/// `@unchecked Sendable`: `decoder`, `observer`, `checkpoint` and `reportedEnd` are used only by
/// `readToEnd` and `release`, which run on the serial delivery queue; `pending` is guarded by
/// `lock`; `cancellation` and `holder` are thread-safe; the rest is immutable.
final class FileReader<Decoder: ChunkDecoder>: @unchecked Sendable {
  private let holder: DescriptorHolder
  private let fd: Int32
  private let queue: DispatchQueue
  private let following: Bool
  private var decoder: Decoder
  private var observer: DescriptorObserver<Decoder.Value>?
  private var checkpoint: FileCheckpoint
  private var reportedEnd = false
  private let lock = Lock()
  private var pending = false
  private let cancellation = CancellationFlag()

  /// Schedules the first pass over `fd`, a duplicate acquired from `holder`, which the reader
  /// now owns. `following` keeps an unfinished last line for the next pass instead of flushing
  /// it at end of file.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue,
    following: Bool
  ) {
    self.holder = holder
    self.fd = fd
    self.decoder = decoder
    self.observer = observer
    self.queue = queue
    self.following = following
    let offset = System.offset(fd)
    self.checkpoint = FileCheckpoint.reading(fd, at: offset) ?? FileCheckpoint(offset: offset)
    LiveResources.opened(.producerObservers)
    refill()
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Asks for a read pass on the delivery queue; passes asked for while one is pending merge.
  func refill() {
    let schedule = lock.withLock {
      defer { pending = true }
      return !pending
    }
    if schedule { queue.async(execute: readToEnd) }
  }

  /// One read pass, on the delivery queue.
  @Sendable private func readToEnd() {
    lock.withLock { pending = false }
    guard let observer, !cancellation.isCancelled else { return }
    let emit = { (value: Decoder.Value) -> Bool in
      guard !self.cancellation.isCancelled else { return false }
      observer.next(value)
      return true
    }
    // Whether the file no longer holds the bytes read before the position (truncated, or
    // truncated and written again past it): then reading starts again from the beginning.
    func startedOver() -> Bool {
      guard checkpoint.verdict(for: fd) != .holds else { return false }
      checkpoint = FileCheckpoint()
      decoder.reset()
      observer.status(.truncated)
      return true
    }
    _ = startedOver()
    var readSomething = false
    let failure = withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) {
      buffer -> Errno? in
      while !cancellation.isCancelled {
        switch System.read(fd, into: buffer, at: checkpoint.offset) {
        case .success(0):
          return nil
        case .success(let count):
          // Checked after the read: a chunk read from a file rewritten since the last read
          // would be the middle of the new content.
          if startedOver() { continue }
          let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
          checkpoint.advance(over: chunk)
          readSomething = true
          decoder.decode(chunk, emit: emit)
        case .failure(let errno):
          return errno
        }
      }
      return nil
    }
    guard !cancellation.isCancelled else { return }
    if let failure {
      self.observer = nil
      observer.status(.failed(.readFailed(holder.fd, failure)))
      return
    }
    if !following { decoder.flush(emit: emit) }
    if readSomething || !reportedEnd {
      reportedEnd = true
      if !cancellation.isCancelled { observer.status(.endOfFile) }
    }
  }

  /// Runs once after disconnect, on the delivery queue, after any pass in progress: drops the
  /// observer and closes the duplicate.
  @Sendable private func release() {
    observer = nil
    System.close(fd)
    LiveResources.closed(.descriptors)
  }

  /// The subscription's disconnect: stops delivery at once, then releases on the queue.
  func disconnect() {
    guard cancellation.cancel() else { return }
    holder.endUse()
    queue.async(execute: release)
  }
}
