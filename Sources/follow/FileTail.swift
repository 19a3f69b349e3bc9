import Dispatch
import IndefiniteObservable
import Multicast
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why `follow` cannot follow a path; reported with exit status 2.
struct FollowError: Error, CustomStringConvertible {
  var description: String
}

/// One open descriptor, read to its end and then followed, split into lines by a
/// `LineSplitter`, with a `FileCheckpoint` of the bytes printed so far. A regular file is read
/// again each time its owner says it was modified (``modified()``: the watch of the path it is
/// at), and, once it is rotated away (``watchByDescriptor()``), each time a watch of its
/// descriptor says so, so a file renamed away or deleted while a writer still appends to it is
/// still read; a pipe or terminal is read by a `FileDescriptors.bytes` stream as data arrives,
/// until its writer closes it.
///
/// A regular file is read here, on the main actor, in the delivery of the watch that says it
/// was modified: the change reaches the main actor in one thread switch (the watch's), and the
/// lines go out from there, with no switch to a reader's queue and back (a
/// `FileDescriptors.bytes` stream with a refill trigger reads on a queue of its own, two more
/// switches per change). A read is a `pread` of what the page cache holds, which is what
/// `tail -F` does too. A long pass (a large file's first read) reads at most
/// ``chunksPerTurn`` chunks per turn of the main actor and goes on in the next turn, so that
/// signals, timers and the other files take turns with it.
///
/// One descriptor per file while it is at its path: the tail reads the descriptor it is given,
/// and the path's watch needs none. A watch of the descriptor, made only once the file is
/// rotated away, holds a duplicate until the tail stops.
///
/// A last line without a newline is held until its newline comes, however long that takes (a
/// block-buffered writer may finish it seconds or minutes later), so lines come out whole. It
/// is printed unfinished only when nothing more of it can come through this tail: when the tail
/// stops (at exit without a state file, or a rotated-away file closed once quiet), when the file
/// is truncated, and when a pipe's writer closes it. With a state file, a tail stopped at exit
/// leaves it out of ``position``, so that the next run prints it whole. Printed unfinished, it is
/// printed once: when its rest arrives (after a restart with a state file written by a run that
/// printed it), an empty rest (just the newline) is not printed at all, and any other rest is a
/// line of its own.
///
/// On the main actor: it is made, used and stopped there, and its streams deliver there.
@MainActor final class FileTail {
  /// What a tail tells its owner, on the main actor.
  struct Events {
    /// The lines of one chunk (or an unfinished last line), in order, to be printed: one call
    /// per chunk, not per line.
    var lines: ([String]) -> Void
    /// Complete lines of one chunk, as the file's bytes with their newlines, and how many lines
    /// they are: when given, runs of lines of plain text (ASCII, no CR), as
    /// `LineSplitter.split(_:plainLines:_:)` finds them, come this way, without a `String` each;
    /// they read as they would through `lines`. The bytes are valid during the call only.
    var text: ((_ bytes: UnsafeRawBufferPointer, _ lineCount: Int) -> Void)? = nil
    /// The file was modified (a regular file's watch fired).
    var activity: () -> Void = {}
    /// The first pass reached the end of what was there.
    var caughtUp: () -> Void = {}
    /// A pipe's writer closed it: nothing more will come.
    var ended: () -> Void = {}
    /// The file was truncated (`rewritten` when it had already grown past the position).
    var truncated: (_ rewritten: Bool) -> Void = { _ in }
    /// Reading failed.
    var failed: (FileDescriptorError) -> Void = { _ in }
  }

  let identity: FileIdentity
  private let fd: Int32
  private let isRegular: Bool
  private let events: Events
  private var splitter = LineSplitter()
  /// The lines of the chunk being split, handed over together once it is split.
  private var batch: [String] = []
  /// Where the bytes received so far end; the printed position is this minus what waits in
  /// the splitter.
  private var received: FileCheckpoint
  /// Whether the last thing printed was an unfinished line, whose rest is still to come.
  private(set) var endedMidLine: Bool
  /// A pipe's or terminal's bytes stream (a regular file is read by ``readAppended()``).
  private var reading: Subscription?
  private var watching: Subscription?
  /// Where a regular file's chunks are read into; allocated by ``start()``.
  private var buffer: [UInt8] = []
  /// Whether a pass over a regular file is reading now, and whether another was asked for
  /// meanwhile (from a callback of the pass); whether the next turn goes on reading.
  private var passing = false
  private var passAgain = false
  private var turnScheduled = false
  /// Whether reading failed: nothing more is read.
  private var failed = false
  private var caughtUp = false
  private(set) var started = false
  private var stopped = false
  /// What waits for the bytes received to reach an offset (``readToCurrentEnd(then:)``).
  private var reachWaiters: [(offset: Int64, action: () -> Void)] = []

  /// Takes `fd`, positioned where reading starts, and `checkpoint` of that position; nothing
  /// is read before ``start()``.
  ///
  /// - Parameter midLine: Whether an unfinished line was printed just before the position
  ///   (by an earlier run, as its state file says): an empty rest is then not printed.
  init(
    descriptor fd: Int32,
    identity: FileIdentity,
    isRegular: Bool,
    at checkpoint: FileCheckpoint,
    midLine: Bool = false,
    events: Events
  ) {
    self.fd = fd
    self.identity = identity
    self.isRegular = isRegular
    self.received = checkpoint
    self.endedMidLine = midLine
    self.events = events
  }

  /// The position up to which lines were printed, with the bytes before it.
  var position: FileCheckpoint { received.rewound(by: splitter.unfinishedByteCount) }

  /// The most bytes one `pread` asks for.
  static let chunkSize = 65_536
  /// The most chunks one turn of the main actor reads: 1 MiB.
  static let chunksPerTurn = 16

  /// Starts reading: a regular file in the next turn of the main actor (a caller may be in the
  /// middle of another tail's delivery); a pipe's descriptor then belongs to its bytes stream,
  /// which closes it.
  func start() throws(FollowError) {
    guard !started, !stopped else { return }
    started = true
    if isRegular {
      buffer = [UInt8](repeating: 0, count: Self.chunkSize)
      readInNextTurn()
      return
    }
    do {
      let bytes = try FileDescriptors.bytes(of: fd, ownership: .streamCloses)
      reading = bytes.subscribe(
        next: { [unowned self] chunk in self.received(chunk) },
        status: { [unowned self] status in self.status(status) })
    } catch {
      close(fd)
      throw FollowError(description: "\(error)")
    }
  }

  /// Reads what was appended to a regular file, now: its path's watch says it was modified.
  func modified() {
    readAppended()
  }

  /// Watches the file by its descriptor from now on, wherever it is moved and even once
  /// deleted: for a file rotated away from its path, whose watch no longer sees it. Reads once
  /// now, for what was appended between the rotation and the watch. Nothing for a pipe.
  func watchByDescriptor() throws(FollowError) {
    guard isRegular, !stopped, watching == nil else { return }
    do {
      // The descriptor is open: the bytes stream closes it only when `reading` ends (in stop).
      watching = try FileWatch.changes(of: fd).filter { $0 == .modified }.subscribe {
        [unowned self] _ in
        self.readAppended()
        self.events.activity()
      }
    } catch {
      throw FollowError(description: "\(error)")
    }
    readInNextTurn()
  }

  /// Calls `action` once what the file holds now has been received: at once when it has been
  /// already (or the tail is not reading a regular file), else after the chunk that reaches
  /// the file's present end, or when the tail is truncated or stopped first. Reads again in
  /// the next turn of the main actor, so that a pass starts after the file reached that end.
  /// On the main actor, from a delivery of this tail's lines or from anywhere else.
  func readToCurrentEnd(then action: @escaping () -> Void) {
    var info = stat()
    guard isRegular, started, !stopped, !failed, fstat(fd, &info) == 0,
      Int64(info.st_size) > received.offset
    else { return action() }
    reachWaiters.append((Int64(info.st_size), action))
    readInNextTurn()
  }

  /// Stops reading and closes the file. An unfinished last line is printed when
  /// `printingUnfinishedLine` (nothing more of it will be read); otherwise it is left out of
  /// ``position``, for a later run to print it whole.
  func stop(printingUnfinishedLine: Bool = true) {
    guard !stopped else { return }
    stopped = true
    watching?.unsubscribe()
    reading?.unsubscribe()
    watching = nil
    reading = nil
    // A regular file's descriptor, or one never handed to a bytes stream, is this tail's own.
    if isRegular || !started { close(fd) }
    if printingUnfinishedLine { printUnfinishedLine() }
    releaseWaiters(upTo: .max)
  }

  // MARK: - Reading a regular file

  /// Reads a regular file from the position to its end, on the main actor, at most
  /// ``chunksPerTurn`` chunks now and the rest in the next turns. A call made while a pass is
  /// reading (from one of its callbacks) makes it read once more when it reaches the end.
  private func readAppended() {
    guard isRegular, started, !stopped, !failed else { return }
    guard !passing else {
      passAgain = true
      return
    }
    passing = true
    defer { passing = false }
    var chunks = 0
    repeat {
      passAgain = false
      checkForTruncation()
      while !stopped, !failed {
        if chunks == Self.chunksPerTurn { return readInNextTurn() }
        guard readChunk() else { break }
        chunks += 1
      }
    } while passAgain && !stopped && !failed
  }

  /// Reads in the next turn of the main actor (one read for any number of calls before it).
  private func readInNextTurn() {
    guard !turnScheduled, !stopped else { return }
    turnScheduled = true
    Task { [weak self] in
      guard let self else { return }
      self.turnScheduled = false
      self.readAppended()
    }
  }

  /// Reads one chunk at the position and hands its lines over; false at the end of the file
  /// (having said so, once, when the first pass reached it) or when the read failed.
  private func readChunk() -> Bool {
    var error: Int32 = 0
    let count = buffer.withUnsafeMutableBytes { buffer in
      var count: Int
      repeat {
        count = pread(fd, buffer.baseAddress, buffer.count, off_t(received.offset))
        error = count < 0 ? errno : 0
      } while error == EINTR
      if count > 0 { received(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
      return count
    }
    guard count >= 0 else {
      failed = true
      events.failed(.readFailed(fd, Errno(error)))
      return false
    }
    guard count > 0 else {
      if !caughtUp {
        caughtUp = true
        events.caughtUp()
      }
      return false
    }
    return true
  }

  /// Starts over from the start of the file when it no longer holds the bytes printed before
  /// the position (truncated, or truncated and written again past it), saying so. A file whose
  /// size reads 0 yet has a byte at its start (a `/proc` or `/sys` file, made anew at each
  /// read) has no length to compare, and is never taken for truncated.
  private func checkForTruncation() {
    guard received.offset > 0, received.verdict(for: fd) != .holds else { return }
    var info = stat()
    var first: UInt8 = 0
    if fstat(fd, &info) == 0, info.st_size == 0, pread(fd, &first, 1, 0) == 1 { return }
    // The unfinished line's end is gone with the old content: print what there was.
    printUnfinishedLine()
    let rewritten = Int64(info.st_size) >= received.offset
    received = FileCheckpoint()
    endedMidLine = false
    events.truncated(rewritten)
    releaseWaiters(upTo: .max)
  }

  /// Calls the waiters whose offset the bytes received reached (all of them with `.max`).
  private func releaseWaiters(upTo offset: Int64) {
    guard !reachWaiters.isEmpty else { return }
    let reached = reachWaiters.filter { $0.offset <= offset }
    reachWaiters.removeAll { $0.offset <= offset }
    for waiter in reached { waiter.action() }
  }

  private func received(_ chunk: [UInt8]) {
    chunk.withUnsafeBytes { received($0) }
  }

  /// Splits and hands over the lines of `chunk`, the next bytes of the file or pipe.
  private func received(_ chunk: UnsafeRawBufferPointer) {
    received.advance(over: chunk)
    guard let text = events.text else {
      // The start of an unfinished last line stays in the splitter until its newline comes.
      splitter.split(chunk) { self.print($0) }
      return finishChunk()
    }
    // Runs of complete lines of plain text go out as they are, without a `String` each; the
    // lines split before a run are handed over first, so the order holds.
    splitter.split(
      chunk,
      plainLines: { run, lineCount in
        var run = run
        var lineCount = lineCount
        if self.endedMidLine {
          // The rest of a line printed unfinished: an empty one (just its newline) is left
          // out, as `print` does; any other is a line of its own.
          self.endedMidLine = false
          if run.first == 0x0A {
            run = UnsafeRawBufferPointer(rebasing: run.dropFirst())
            lineCount -= 1
          }
        }
        self.handOverBatch()
        if lineCount > 0 { text(run, lineCount) }
      }, { self.print($0) })
    finishChunk()
  }

  /// Hands over the lines of the chunk and writes them out in one write, now (none waits for
  /// the next chunk); then calls the waiters the chunk reached.
  private func finishChunk() {
    handOverBatch()
    Output.flushLines()
    if !reachWaiters.isEmpty { releaseWaiters(upTo: received.offset) }
  }

  /// Hands over the lines split since the last call, and writes them out in one write, now:
  /// none waits for the next chunk.
  private func deliverBatch() {
    handOverBatch()
    Output.flushLines()
  }

  /// Hands over the lines split since the last call, to be written with the chunk's others.
  private func handOverBatch() {
    guard !batch.isEmpty else { return }
    events.lines(batch)
    batch.removeAll(keepingCapacity: true)
  }

  /// A pipe's bytes stream's status (a pipe is never truncated).
  private func status(_ status: DescriptorStatus) {
    switch status {
    case .endOfFile:
      printUnfinishedLine()
      events.ended()
      if !caughtUp {
        caughtUp = true
        events.caughtUp()
      }
    case .truncated:
      break
    case .failed(let error):
      events.failed(error)
    }
  }

  private func print(_ line: LineSplitter.Line) {
    // An empty rest of a line printed unfinished (its newline, or a CR still waiting for
    // one): the line was printed already.
    if endedMidLine && line.text.isEmpty && line.end != .cut {
      if line.end != .endOfInput { endedMidLine = false }
      return
    }
    endedMidLine = false
    batch.append(line.text)
  }

  /// Prints the unfinished line, if any, when nothing more of it can come: its rest, if any
  /// ever comes, is a line of its own.
  private func printUnfinishedLine() {
    var flushed = false
    splitter.flush { line in
      self.print(line)
      flushed = true
    }
    if flushed {
      endedMidLine = true
      deliverBatch()
    }
  }
}
