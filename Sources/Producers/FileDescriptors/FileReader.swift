import Dispatch
import IndefiniteObservable
import Synchronization

/// Reads a regular file for one subscription: to its end at once, then again each time the
/// refill trigger fires, from where it stopped (or from the start, after a truncation: the
/// file no longer holds the bytes read before the position, see ``FileCheckpoint``).
///
/// A regular file is always "readable" to Dispatch, so a read source would spin at end of file;
/// this reader runs read passes on the queue instead, and uses `pread` with its own
/// offset so it never moves the descriptor's offset. A pass is a series of turns of one chunk
/// each, and the next turn is asked for once the subscriber has received the values of the last
/// (``DescriptorReader/deliver(_:then:)``), so a long file takes turns with the other work of
/// the subscriber's actor and is never read ahead of it.
///
/// A file whose size reads 0 in `stat` yet has a byte at its start is a `/proc` or `/sys`
/// file, whose content is made anew at each read (`/proc/meminfo`, `/proc/uptime`): it has no
/// length, and bytes that change between two reads are no sign of a rewrite. Such a file is
/// never taken for truncated; a refill reads whatever lies past the position.
///
/// `decoder`, `checkpoint`, `isPassing`, `passAgain`, `lengthIsKnown`, `readSomething`,
/// `reportedEnd` and `hasFailed` are used only by the passes, on the queue (see
/// ``DescriptorReader``); `pending` is atomic.
final class FileReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>, @unchecked Sendable
{
  private let following: Bool
  private var decoder: Decoder
  // The most bytes one read asks for: the most that one turn decodes and delivers.
  private let chunkSize: Int
  private var checkpoint: FileCheckpoint
  // Whether a pass is under way, and whether another was asked for meanwhile: it starts when
  // this one ends, and checks the file again (it may have been truncated behind the position
  // this pass reads from).
  private var isPassing = false
  private var passAgain = false
  // Whether the pass under way may compare the file with the checkpoint (see above).
  private var lengthIsKnown = true
  private var readSomething = false
  private var reportedEnd = false
  private var hasFailed = false
  // Whether a read pass is waiting on the queue: passes asked for meanwhile merge into it.
  private let pending = Atomic(false)

  /// Takes over `fd`, a descriptor acquired from `holder`, which the reader now owns; the first
  /// pass waits for the first ``refill()``, which the stream asks for once it has subscribed to
  /// its refill trigger (so that a write right after the first pass read is never missed: its
  /// trigger comes after the subscription). `following` keeps an unfinished last line for the next pass instead of flushing
  /// it at end of file.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    chunkSize: Int,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue,
    following: Bool,
    isolation: isolated any Actor
  ) {
    self.decoder = decoder
    self.chunkSize = chunkSize
    self.following = following
    let offset = System.offset(fd)
    self.checkpoint = FileCheckpoint.reading(fd, at: offset) ?? FileCheckpoint(offset: offset)
    super.init(holder: holder, fd: fd, queue: queue, observer: observer, isolation: isolation)
  }

  /// Asks for a read pass on the queue; passes asked for while one is pending merge.
  func refill() {
    guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
    queue.async(execute: startPass)
  }

  /// Starts a read pass on the queue, or once the pass under way has ended.
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
    lengthIsKnown = !lengthIsUnknown()
    _ = startedOver()
    isPassing = true
    readSomething = false
    readTurn()
  }

  /// Whether the file no longer holds the bytes read before the position (truncated, or
  /// truncated and written again past it): then reading starts again from the beginning.
  private func startedOver() -> Bool {
    guard lengthIsKnown, checkpoint.verdict(for: fd) != .holds else { return false }
    checkpoint = FileCheckpoint()
    decoder.reset()
    report(.truncated)
    return true
  }

  /// One turn of a pass, on the queue: reads one chunk and delivers its values, then
  /// asks for the next turn; at the end of the file, ends the pass.
  @Sendable private func readTurn() {
    guard !isCancelled else { return }
    var values: [Decoder.Value] = []
    let emit = { (value: Decoder.Value) -> Bool in
      values.append(value)
      return true
    }
    let result = withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) {
      buffer -> Result<Int, Errno> in
      let result = System.read(fd, into: buffer, at: checkpoint.offset)
      guard case .success(let count) = result, count > 0 else { return result }
      // Checked after the read: a chunk read from a file rewritten since the last read would
      // be the middle of the new content. The next turn reads from the start.
      if startedOver() { return result }
      let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
      checkpoint.advance(over: chunk)
      readSomething = true
      decoder.decode(chunk, emit: emit)
      return result
    }
    switch result {
    case .success(0):
      isPassing = false
      if !following { decoder.flush(emit: emit) }
      if !values.isEmpty { deliver(values) }
      if readSomething || !reportedEnd {
        reportedEnd = true
        report(.endOfFile)
      }
      if passAgain && !isCancelled {
        passAgain = false
        beginPass()
      }
    case .success:
      // A chunk that completed nothing (part of a long line) needs no delivery to wait for.
      if values.isEmpty { return queue.async(execute: readTurn) }
      deliver(values, then: onQueue(readTurn))
    case .failure(let errno):
      isPassing = false
      hasFailed = true
      report(.failed(.readFailed(holder.fd, errno)))
    }
  }

  /// Whether `stat` says 0 for a file that has a byte at its start: a `/proc` or `/sys` file.
  private func lengthIsUnknown() -> Bool {
    guard case .success(let info) = System.status(fd), info.st_size == 0 else { return false }
    let first = withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { buffer in
      System.read(fd, into: buffer, at: 0)
    }
    return first == .success(1)
  }
}
