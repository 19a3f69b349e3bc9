import Dispatch
import IndefiniteObservable
import Synchronization

/// Reads a regular file for one subscription: to its end at once, then again each time the
/// refill trigger fires, from where it stopped (or from the start, after a truncation: the
/// file no longer holds the bytes read before the position, see ``FileCheckpoint``).
///
/// A regular file is always "readable" to Dispatch, so a read source would spin at end of file;
/// this reader runs read passes on the delivery queue instead, and uses `pread` with its own
/// offset so it never moves the descriptor's offset.
///
/// `decoder`, `checkpoint`, `reportedEnd` and `hasFailed` are used only by `readToEnd`, on the
/// delivery queue (see ``DescriptorReader``); `pending` is atomic.
final class FileReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>, @unchecked Sendable
{
  private let following: Bool
  private var decoder: Decoder
  private var checkpoint: FileCheckpoint
  private var reportedEnd = false
  private var hasFailed = false
  // Whether a read pass is waiting on the queue: passes asked for meanwhile merge into it.
  private let pending = Atomic(false)

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
    self.decoder = decoder
    self.following = following
    let offset = System.offset(fd)
    self.checkpoint = FileCheckpoint.reading(fd, at: offset) ?? FileCheckpoint(offset: offset)
    super.init(holder: holder, fd: fd, queue: queue, observer: observer)
    refill()
  }

  /// Asks for a read pass on the delivery queue; passes asked for while one is pending merge.
  func refill() {
    guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
    queue.async(execute: readToEnd)
  }

  /// One read pass, on the delivery queue.
  @Sendable private func readToEnd() {
    pending.store(false, ordering: .releasing)
    guard !hasFailed, !isCancelled else { return }
    let emit = { (value: Decoder.Value) -> Bool in self.deliver(value) }
    // Whether the file no longer holds the bytes read before the position (truncated, or
    // truncated and written again past it): then reading starts again from the beginning.
    func startedOver() -> Bool {
      guard checkpoint.verdict(for: fd) != .holds else { return false }
      checkpoint = FileCheckpoint()
      decoder.reset()
      report(.truncated)
      return true
    }
    _ = startedOver()
    var readSomething = false
    let failure = withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) {
      buffer -> Errno? in
      while !isCancelled {
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
    if let failure {
      hasFailed = true
      report(.failed(.readFailed(holder.fd, failure)))
      return
    }
    if !following { decoder.flush(emit: emit) }
    if readSomething || !reportedEnd {
      reportedEnd = true
      report(.endOfFile)
    }
  }

  /// Releases on the queue, after any pass in progress.
  override func stop() {
    queue.async(execute: release)
  }

  @Sendable override func release() {
    super.release()
  }
}
