import Dispatch
import IndefiniteObservable
import Synchronization

/// Reads a regular file for one subscription: to its end at once, then again each time the
/// refill trigger fires, from where it stopped (or from the start, after a truncation).
///
/// A regular file is always "readable" to Dispatch, so a read source would spin at end of file;
/// this reader runs read passes on the delivery queue instead, and uses `pread` with its own
/// offset so it never moves the descriptor's offset. A pass is a series of turns of one chunk
/// each, and between two turns the other work on the target queue runs
/// (``DescriptorReader/continueAfterOthers(_:)``), so a long file does not hold the queue.
///
/// `decoder`, `offset`, `isPassing`, `passAgain`, `readSomething`, `reportedEnd` and
/// `hasFailed` are used only by the passes, on the delivery queue (see ``DescriptorReader``);
/// `pending` is atomic.
final class FileReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>, @unchecked Sendable
{
  private let following: Bool
  private var decoder: Decoder
  // The most bytes one read asks for: the most that one turn decodes and delivers.
  private let chunkSize: Int
  private var offset: Int64
  // Whether a pass is under way, and whether another was asked for meanwhile: it starts when
  // this one ends, and checks the file's length again (the file may have been truncated
  // behind the position this pass reads from).
  private var isPassing = false
  private var passAgain = false
  private var readSomething = false
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
    chunkSize: Int,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue,
    target: DispatchQueue?,
    following: Bool
  ) {
    self.decoder = decoder
    self.chunkSize = chunkSize
    self.following = following
    self.offset = System.offset(fd)
    super.init(holder: holder, fd: fd, queue: queue, target: target, observer: observer)
    refill()
  }

  /// Asks for a read pass on the delivery queue; passes asked for while one is pending merge.
  func refill() {
    guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
    queue.async(execute: startPass)
  }

  /// Starts a read pass on the delivery queue, or once the pass under way has ended.
  @Sendable private func startPass() {
    pending.store(false, ordering: .releasing)
    guard !hasFailed, !isCancelled else { return }
    guard !isPassing else {
      passAgain = true
      return
    }
    beginPass()
  }

  /// Begins a pass: from the start of the file when it was truncated, else from the position.
  private func beginPass() {
    if wasTruncated() {
      offset = 0
      decoder.reset()
      report(.truncated)
    }
    isPassing = true
    readSomething = false
    readTurn()
  }

  /// One turn of a pass, on the delivery queue: reads one chunk and delivers its values, then
  /// asks for the next turn; at the end of the file, ends the pass.
  @Sendable private func readTurn() {
    guard !isCancelled else { return }
    let emit = { (value: Decoder.Value) -> Bool in self.deliver(value) }
    let result = withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) {
      buffer in
      System.read(fd, into: buffer, at: offset).map { count in
        guard count > 0 else { return 0 }
        offset += Int64(count)
        decoder.decode(UnsafeRawBufferPointer(rebasing: buffer[..<count]), emit: emit)
        return count
      }
    }
    switch result {
    case .success(0):
      isPassing = false
      if !following { decoder.flush(emit: emit) }
      if readSomething || !reportedEnd {
        reportedEnd = true
        report(.endOfFile)
      }
      if passAgain && !isCancelled {
        passAgain = false
        beginPass()
      }
    case .success:
      readSomething = true
      continueAfterOthers(readTurn)
    case .failure(let errno):
      isPassing = false
      hasFailed = true
      report(.failed(.readFailed(holder.fd, errno)))
    }
  }

  /// Whether the file became shorter than the position read so far.
  ///
  /// A size of 0 is not always a length: `/proc` and `/sys` files say 0 and have content, which
  /// is read anew on each read. When the file says 0 yet has a byte at its start, its length
  /// is unknown, and it is not taken for truncated.
  private func wasTruncated() -> Bool {
    guard offset > 0, case .success(let info) = System.status(fd), Int64(info.st_size) < offset
    else { return false }
    guard info.st_size == 0 else { return true }
    let first = withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { buffer in
      System.read(fd, into: buffer, at: 0)
    }
    return first != .success(1)
  }

  /// Releases on the queue, after any turn in progress.
  override func stop() {
    queue.async(execute: release)
  }

  @Sendable override func release() {
    super.release()
  }
}
