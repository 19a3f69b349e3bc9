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

/// One open descriptor, read to its end and then followed: a regular file read by a
/// `FileReader` (its one position), a pipe or terminal by its bytes stream, and the bytes split
/// into lines by a `LineSplitter`. A regular file is read again each time its owner says it
/// was modified (``modified()``: the watch of the path it is at), and, once it is rotated away
/// (``watchByDescriptor()``), each time a watch of its descriptor says so, so a file renamed
/// away or deleted while a writer still appends to it is still read; a pipe or terminal is read
/// as data arrives, until its writer closes it.
///
/// A regular file is read where the change arrives, in the call that says so: `follow` runs
/// `MainLoop.run()`, so the watch reads the change on the main thread and delivers it there,
/// and the tail reads the file with one `pread` into its reader's buffer, splits it and hands
/// the lines to the output in that call: no thread switch from the system to the output, and
/// no stream, queue or second turn between. A long read (a file's first pass, a burst) takes
/// turns of at most ``largestTurn`` bytes, the next one queued on the main actor behind the
/// other work waiting there (the path watches' events, a timer), so that no file holds the
/// main thread for long.
///
/// One descriptor per file while it is at its path: the tail reads the descriptor it is given
/// and closes it when it stops, and the path's watch needs none. A watch of the descriptor,
/// made only once the file is rotated away, holds a duplicate until the tail stops.
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
    /// The first pass reached the end of what was there (a pipe: once its stream started).
    var caughtUp: () -> Void = {}
    /// A pipe's writer closed it: nothing more will come.
    var ended: () -> Void = {}
    /// The file was truncated (`rewritten` when it had already grown past the position).
    var truncated: (_ rewritten: Bool) -> Void = { _ in }
    /// Reading failed.
    var failed: (FileDescriptorError) -> Void = { _ in }
    /// When given, counts the lines handed over through ``lines`` and ``text``: the owner's
    /// count, kept without a closure of its own around each call.
    var counted: LineCount? = nil
  }

  /// A count of lines, shared by the tails of one path (``Events/counted``).
  final class LineCount {
    /// The lines counted so far.
    fileprivate(set) var value = 0
  }

  /// The most bytes read in one turn of the main actor: a longer read goes on in a later turn.
  static let largestTurn = 1 << 20

  let identity: FileIdentity
  private let isRegular: Bool
  private let events: Events
  /// The reader, the splitter and what they leave: everything a read changes, in one value,
  /// so that a read is one access to the tail (a class's stored property is checked for
  /// exclusive access at run time, at each access), and the calls inside it are checked by
  /// the compiler.
  private var reading: Reading
  /// Whether the last thing printed was an unfinished line, whose rest is still to come.
  var endedMidLine: Bool { reading.endedMidLine }
  /// A pipe's or terminal's bytes stream.
  private var pipe: SendableSubscription?
  /// Whether the descriptor is this tail's to close: until a pipe's stream takes it (or a
  /// stream that could not be made closed it).
  private var ownsDescriptor = true
  private var watching: Subscription?
  /// Whether a turn that reads on is queued on the main actor.
  private var turnQueued = false
  /// Whether a read failed: the file is read no more (the failure was said once).
  private var readFailed = false
  private var caughtUp = false
  private(set) var started = false
  private var stopped = false
  /// What waits for the bytes received to reach an offset (``readToCurrentEnd(then:)``).
  private var reachWaiters: [(offset: Int64, action: () -> Void)] = [] {
    didSet { hasReachWaiters = !reachWaiters.isEmpty }
  }
  /// Whether ``reachWaiters`` has any: asked at each chunk, a stored flag is checked by the
  /// compiler, the array by a run-time exclusivity check (its other uses call closures).
  private var hasReachWaiters = false

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
    self.identity = identity
    self.isRegular = isRegular
    self.reading = Reading(
      reader: FileReader(descriptor: fd, at: checkpoint), endedMidLine: midLine)
    self.events = events
  }

  private var fd: Int32 { reading.reader.descriptor }

  /// The position up to which lines were printed, with the bytes before it.
  var position: FileCheckpoint {
    reading.reader.checkpoint.rewound(by: reading.splitter.unfinishedByteCount)
  }

  /// Starts reading: a regular file at once, to its end (in turns of ``largestTurn``); a pipe
  /// by its bytes stream, which then owns the descriptor and closes it.
  func start() throws(FollowError) {
    guard !started, !stopped else { return }
    started = true
    guard isRegular else {
      do {
        let bytes = try FileDescriptors.bytes(of: fd, ownership: .streamCloses)
        ownsDescriptor = false
        pipe = bytes.subscribe(
          next: { [unowned self] chunk in
            self.reading.receive(chunk, self.events)
            self.finishChunk()
          },
          status: { [unowned self] status in self.pipeStatus(status) })
        // All that comes through a pipe is new: it has no present end to catch up with (a
        // named pipe held open for writing too never ends).
        reportCaughtUp()
      } catch {
        ownsDescriptor = false
        close(fd)
        throw FollowError(description: "\(error)")
      }
      return
    }
    readAppended()
  }

  /// Reads what was appended to a regular file and prints it, now: its path's watch says it
  /// was modified.
  func modified() {
    readAppended()
  }

  /// Watches the file by its descriptor from now on, wherever it is moved and even once
  /// deleted: for a file rotated away from its path, whose watch no longer sees it. Reads once
  /// now, for what was appended between the rotation and the watch. Nothing for a pipe.
  func watchByDescriptor() throws(FollowError) {
    guard isRegular, !stopped, watching == nil else { return }
    do {
      // The descriptor is open: the tail closes it only in `stop`, after ending this watch.
      // `unowned`, as the pipe's subscription above: `stop()` ends the watch, and a weak
      // reference would give the tail a side table (see `FileTailBox`).
      watching = try FileWatch.changes(of: fd).stream().filter { $0 == .modified }.subscribe {
        [unowned self] _ in
        self.readAppended()
        self.events.activity()
      }
    } catch {
      throw FollowError(description: "\(error)")
    }
    readAppended()
  }

  /// Calls `action` once what the file holds now has been received: at once when it has been
  /// already (or the tail is not reading a regular file), else after the read that reaches
  /// the file's present end, or when the tail is truncated or stopped first. Reads now, so
  /// that a read starts after the file reached that end. On the main actor.
  func readToCurrentEnd(then action: @escaping () -> Void) {
    var info = stat()
    guard isRegular, started, !stopped, fstat(fd, &info) == 0,
      Int64(info.st_size) > reading.reader.checkpoint.offset
    else { return action() }
    reachWaiters.append((Int64(info.st_size), action))
    readAppended()
  }

  /// Stops reading and closes the file. An unfinished last line is printed when
  /// `printingUnfinishedLine` (nothing more of it will be read); otherwise it is left out of
  /// ``position``, for a later run to print it whole.
  func stop(printingUnfinishedLine: Bool = true) {
    guard !stopped else { return }
    stopped = true
    watching?.unsubscribe()
    watching = nil
    // A pipe's stream owns its descriptor once started (and closes it when unsubscribed).
    pipe?.unsubscribe()
    pipe = nil
    if ownsDescriptor {
      ownsDescriptor = false
      close(fd)
    }
    if printingUnfinishedLine { printUnfinishedLine() }
    releaseWaiters(upTo: .max)
  }

  /// Reads a regular file from the position to its end, or for one turn of at most
  /// ``largestTurn`` bytes, queuing the next turn; prints the lines read.
  private func readAppended() {
    guard isRegular, started, !stopped, !readFailed else { return }
    while true {
      let outcome = reading.read(upTo: Self.largestTurn, events)
      finishChunk()
      switch outcome {
      case .success(.endOfFile):
        return reportCaughtUp()
      case .success(.more):
        return queueTurn()
      case .success(.truncated(let rewritten)):
        // The unfinished line's end is gone with the old content: print what there was.
        printUnfinishedLine()
        reading.endedMidLine = false
        events.truncated(rewritten)
        releaseWaiters(upTo: .max)
        // Read the new content from its start, now.
        guard !stopped else { return }
      case .failure(let errno):
        readFailed = true
        return events.failed(.readFailed(fd, errno))
      }
    }
  }

  /// Says once that the tail has received what its file held when it started.
  private func reportCaughtUp() {
    guard !caughtUp else { return }
    caughtUp = true
    events.caughtUp()
  }

  /// Reads on in a later turn of the main actor, after the work waiting there. The turn holds
  /// the tail until it runs (a stopped tail reads nothing), with no weak reference (see
  /// `FileTailBox`).
  private func queueTurn() {
    guard !turnQueued else { return }
    turnQueued = true
    DispatchQueue.main.async { [self] in
      MainActor.assumeIsolated {
        self.turnQueued = false
        self.readAppended()
      }
    }
  }

  /// Calls the waiters whose offset the bytes received reached (all of them with `.max`).
  private func releaseWaiters(upTo offset: Int64) {
    guard hasReachWaiters else { return }
    let reached = reachWaiters.filter { $0.offset <= offset }
    reachWaiters.removeAll { $0.offset <= offset }
    for waiter in reached { waiter.action() }
  }

  /// Writes out the lines of the chunk (handed over already) in one write, now (none waits for
  /// the next chunk); then calls the waiters the chunk reached.
  private func finishChunk() {
    Output.flushLines()
    if hasReachWaiters { releaseWaiters(upTo: reading.reader.checkpoint.offset) }
  }

  /// What a pipe's bytes stream says: its writer closed it, or reading failed.
  private func pipeStatus(_ status: DescriptorStatus) {
    switch status {
    case .endOfFile:
      printUnfinishedLine()
      events.ended()
      reportCaughtUp()
    case .truncated:
      break
    case .failed(let error):
      events.failed(error)
    }
  }

  /// Prints the unfinished line, if any, when nothing more of it can come: its rest, if any
  /// ever comes, is a line of its own.
  private func printUnfinishedLine() {
    if reading.flush(events) { Output.flushLines() }
  }
}

extension FileTail {
  /// What a read of the tail changes, in one value: the reader (the one position), the
  /// splitter, the lines split and not handed over yet, and whether the last line printed was
  /// unfinished. Each call is one access to the tail's ``FileTail/reading``; the events are the
  /// owner's, which do not call back into the tail.
  fileprivate struct Reading {
    /// Reads a regular file, and keeps where the bytes read so far end (a pipe's too, counted
    /// as they arrive); the printed position is this minus what waits in the splitter.
    var reader: FileReader
    var splitter = LineSplitter()
    /// The lines of the chunk being split, handed over together once it is split.
    var batch: [String] = []
    /// Whether the last thing printed was an unfinished line, whose rest is still to come.
    var endedMidLine: Bool

    init(reader: FileReader, endedMidLine: Bool) {
      self.reader = reader
      self.endedMidLine = endedMidLine
    }

    /// Reads on from the position, up to `maximumCount` bytes, splits what it reads and hands
    /// over its lines.
    mutating func read(
      upTo maximumCount: Int, _ events: Events
    ) -> Result<FileReader.Outcome, Errno> {
      let outcome = reader.read(upTo: maximumCount) { bytes in
        Self.split(bytes, &splitter, &batch, &endedMidLine, events)
      }
      Self.handOver(&batch, events)
      return outcome
    }

    /// Takes `chunk`, the next bytes of a pipe, splits them and hands over their lines.
    mutating func receive(_ chunk: [UInt8], _ events: Events) {
      reader.checkpoint.advance(over: chunk)
      chunk.withUnsafeBytes { Self.split($0, &splitter, &batch, &endedMidLine, events) }
      Self.handOver(&batch, events)
    }

    /// Splits `chunk`, the next bytes of the file, and hands over its lines; the start of an
    /// unfinished last line stays in the splitter until its newline comes. Static, with each
    /// part it changes passed alone, so that the reader may be changed meanwhile.
    private static func split(
      _ chunk: UnsafeRawBufferPointer, _ splitter: inout LineSplitter, _ batch: inout [String],
      _ endedMidLine: inout Bool, _ events: Events
    ) {
      // The closure is called where it is, in `events`, not bound to a name first: a copy of it
      // would be retained and released at each chunk.
      guard events.text != nil else {
        return splitter.split(chunk) { print($0, &batch, &endedMidLine) }
      }
      // Runs of complete lines of plain text go out as they are, without a `String` each; the
      // lines split before a run are handed over first, so the order holds.
      splitter.split(
        chunk,
        plainLines: { run, lineCount in
          var run = run
          var lineCount = lineCount
          if endedMidLine {
            // The rest of a line printed unfinished: an empty one (just its newline) is left
            // out, as `print` does; any other is a line of its own.
            endedMidLine = false
            if run.first == 0x0A {
              run = UnsafeRawBufferPointer(rebasing: run.dropFirst())
              lineCount -= 1
            }
          }
          handOver(&batch, events)
          if lineCount > 0 {
            events.text?(run, lineCount)
            events.counted?.value += lineCount
          }
        }, { print($0, &batch, &endedMidLine) })
    }

    /// Hands over the lines split since the last call, to be written with the chunk's others.
    private static func handOver(_ batch: inout [String], _ events: Events) {
      guard !batch.isEmpty else { return }
      events.counted?.value += batch.count
      events.lines(batch)
      batch.removeAll(keepingCapacity: true)
    }

    private static func print(
      _ line: LineSplitter.Line, _ batch: inout [String], _ endedMidLine: inout Bool
    ) {
      // An empty rest of a line printed unfinished (its newline, or a CR still waiting for
      // one): the line was printed already.
      if endedMidLine && line.text.isEmpty && line.end != .cut {
        if line.end != .endOfInput { endedMidLine = false }
        return
      }
      endedMidLine = false
      batch.append(line.text)
    }

    /// Hands over the unfinished line, if any, as a line: whether there was one. Its rest, if
    /// any ever comes, is a line of its own.
    mutating func flush(_ events: Events) -> Bool {
      var flushed = false
      splitter.flush { line in
        Self.print(line, &batch, &endedMidLine)
        flushed = true
      }
      guard flushed else { return false }
      endedMidLine = true
      Self.handOver(&batch, events)
      return true
    }
  }
}
