import Dispatch
import IndefiniteObservable
import Synchronization

/// Reads a regular file for one subscription: to its end at once, then again each time the
/// refill trigger fires, from where it stopped (or from the start, after a truncation).
///
/// A regular file is always "readable" to Dispatch, so a read source would spin at end of file;
/// this reader runs read passes on the delivery queue instead, and uses `pread` with its own
/// offset so it never moves the descriptor's offset.
///
/// `decoder`, `offset`, `reportedEnd` and `hasFailed` are used only by `readToEnd`, on the
/// delivery queue (see ``DescriptorReader``); `pending` is atomic.
final class FileReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>, @unchecked Sendable
{
  private let following: Bool
  private var decoder: Decoder
  private var offset: Int64
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
    self.offset = System.offset(fd)
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
    if case .success(let info) = System.status(fd), Int64(info.st_size) < offset {
      offset = 0
      decoder.reset()
      report(.truncated)
    }
    var readSomething = false
    let failure = withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) {
      buffer -> Errno? in
      while !isCancelled {
        switch System.read(fd, into: buffer, at: offset) {
        case .success(0):
          return nil
        case .success(let count):
          offset += Int64(count)
          readSomething = true
          decoder.decode(UnsafeRawBufferPointer(rebasing: buffer[..<count]), emit: emit)
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
