import Dispatch
import Foundation
import IndefiniteObservable
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes to standard output and standard error, unbuffered between turns: the lines printed
/// while one chunk of a file is handled go out in one `write` when the chunk is done
/// (``flushLines()``), so a busy file costs a system call per chunk, not per line, and no line
/// waits while `follow` is idle.
///
/// A full pipe does not hold the main thread: `follow`'s main thread also reads the changes
/// of the followed paths (`MainLoop`), and a file that appears at a path must be opened while
/// it is there, even when the reader of the output is slow. So lines that a pipe cannot take
/// now wait here, in order, and go out when it has room again (a readiness stream of the
/// pipe); only past ``largestBacklog`` bytes waiting does the main thread wait for the pipe,
/// which bounds the memory held for a reader that stopped.
///
/// On the main actor, where every line is printed.
@MainActor enum Output {
  /// Past this many bytes, lines are written without waiting for the end of the turn.
  private nonisolated static let largestBatch = 1 << 16
  /// Past this many bytes waiting for a full pipe, the main thread waits for the pipe.
  nonisolated static let largestBacklog = 1 << 22
  /// The wait for room in a full pipe, while lines wait for it.
  private static var waitingForRoom: SendableSubscription?

  /// Where lines are written: standard output, or, when that is a pipe, the same pipe opened
  /// anew, non-blocking. The flag is then this description's alone: standard output's own may
  /// be shared with a shell and the other programs of a pipeline, which expect it blocking.
  private nonisolated static let out: Int32 = {
    var info = stat()
    guard fstat(STDOUT_FILENO, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
      return STDOUT_FILENO
    }
    let fd = open("/proc/self/fd/\(STDOUT_FILENO)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
    return fd >= 0 ? fd : STDOUT_FILENO
  }()

  /// Adds `text` and a newline to what the next ``flushLines()`` writes to standard output.
  static func line(_ text: String) {
    if PendingLines.append(text) { flushLines() }
  }

  /// Adds `bytes`, complete lines with their newlines, to what the next ``flushLines()`` writes
  /// to standard output, as they are.
  static func lines(_ bytes: UnsafeRawBufferPointer) {
    if PendingLines.append(bytes) { flushLines() }
  }

  /// Adds `bytes`, complete lines with their newlines, to what the next ``flushLines()``
  /// writes to standard output, each line after `label`.
  static func lines(_ bytes: UnsafeRawBufferPointer, eachAfter label: [UInt8]) {
    guard var start = bytes.baseAddress else { return }
    let end = start + bytes.count
    var isFull = false
    label.withUnsafeBytes { label in
      while start < end, let newline = memchr(start, 0x0A, end - start) {
        let next = UnsafeRawPointer(newline) + 1
        isFull = PendingLines.append(label) || isFull
        isFull =
          PendingLines.append(UnsafeRawBufferPointer(start: start, count: next - start)) || isFull
        start = next
      }
    }
    assert(start == end, "a run of lines that does not end with a newline")
    if isFull { flushLines() }
  }

  /// Writes the lines printed since the last call to standard output, in one `write` when the
  /// pipe takes it all. Called at the end of each turn that printed lines. While a full pipe
  /// is waited for, the lines wait behind the ones before them, unless they are too many.
  static func flushLines() {
    switch PendingLines.write(to: out, always: false) {
    case .nothing, .all(stoppedWaiting: false): return
    case .all(stoppedWaiting: true): stopWaiting()
    case .part: waitForRoom()
    case .failed(let error): outputFailed(error)
    }
  }

  /// Writes every line printed, waiting for a full pipe as long as it takes: before `follow`
  /// exits, so that no line printed is lost with it.
  static func finish() {
    if case .failed(let error) = PendingLines.writeAll(to: out) {
      outputFailed(error)
    }
    stopWaiting()
  }

  /// The pipe has room again: writes what it takes of the lines waiting.
  private static func roomMade() {
    switch PendingLines.write(to: out, always: true) {
    case .nothing, .all: stopWaiting()
    case .part: break
    case .failed(let error): outputFailed(error)
    }
  }

  /// Waits for room in the full pipe, unless it is waited for already.
  private static func waitForRoom() {
    guard waitingForRoom == nil else { return }
    do {
      waitingForRoom = try FileDescriptors.writable(out, ownership: .callerCloses).subscribe(
        next: { _ in roomMade() })
    } catch {
      // No wait can be made (out of descriptors): wait here, as a blocking write would.
      if case .failed(let error) = PendingLines.writeAll(to: out) {
        outputFailed(error)
      }
      stopWaiting()
    }
  }

  private static func stopWaiting() {
    if PendingLines.isWaitingForRoom { PendingLines.isWaitingForRoom = false }
    guard let waiting = waitingForRoom else { return }
    waitingForRoom = nil
    waiting.unsubscribe()
  }

  /// The lines printed and not written yet, with their newlines, oldest first: the first
  /// `count` bytes of a buffer of `capacity` bytes kept from turn to turn (allocated here,
  /// freed when a larger one replaces it or a backlog is written), so that adding lines is one
  /// copy and writing them all out only sets `count` back to 0.
  ///
  /// Each part is a static variable of its own, read or written in an access that calls
  /// nothing: the optimizer then proves that no access overlaps another and checks none at run
  /// time (one value changed by a mutating method was checked at each call, twice a line).
  /// The buffer is the main actor's alone, as `Output` is.
  @MainActor private enum PendingLines {
    static var base: UnsafeMutableRawPointer? = nil
    static var capacity = 0
    static var count = 0
    /// Whether the lines wait for room in a full pipe (``Output/waitingForRoom``).
    static var isWaitingForRoom = false

    /// Adds `text` and a newline: whether a batch is full.
    static func append(_ text: String) -> Bool {
      var text = text
      _ = text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
      return withUnsafeBytes(of: UInt8(0x0A)) { append($0) }
    }

    /// Adds `lines` as they are: whether a batch is full.
    static func append(_ lines: UnsafeRawBufferPointer) -> Bool {
      let count = count
      let end = count + lines.count
      var base = base
      if end > capacity { base = grow(to: end) }
      if let source = lines.baseAddress, let base {
        (base + count).copyMemory(from: source, byteCount: lines.count)
      }
      Self.count = end
      return end >= Output.largestBatch
    }

    /// Replaces the buffer with a larger one, holding at least `needed` bytes, with the lines
    /// waiting copied over; the new buffer's start.
    private static func grow(to needed: Int) -> UnsafeMutableRawPointer {
      let old = base
      let oldCapacity = capacity
      let newCapacity = max(needed, 2 * oldCapacity, 4096)
      let new = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
      let count = count
      if let old {
        new.copyMemory(from: old, byteCount: count)
        old.deallocate()
      }
      base = new
      capacity = newCapacity
      return new
    }

    /// Hands the lines to `write`, which says how many it wrote and the error number when it
    /// failed (as `Output.write` does), and drops those written.
    private static func write(
      _ write: (UnsafeRawBufferPointer) -> (written: Int, error: Int32?)
    ) -> (written: Int, error: Int32?) {
      let result = write(UnsafeRawBufferPointer(start: base, count: count))
      dropFirst(result.written)
      return result
    }

    /// Drops the first `written` bytes, moving the rest down.
    private static func dropFirst(_ written: Int) {
      let count = count
      guard written < count else {
        Self.count = 0
        // A buffer grown for a backlog is let go once it is written.
        if capacity > Output.largestBatch * 2, let old = base {
          base = nil
          capacity = 0
          old.deallocate()
        }
        return
      }
      let rest = count - written
      if let base {
        base.copyMemory(from: base + written, byteCount: rest)
      }
      Self.count = rest
    }

    /// What a write did.
    enum Written {
      /// There was nothing to write, or the lines wait for room (and are not too many).
      case nothing
      /// Everything was written (`stoppedWaiting`: the lines had waited for room).
      case all(stoppedWaiting: Bool)
      /// Some was left: the pipe is full.
      case part
      case failed(Int32)
    }

    /// Writes what `fd` takes now of the lines; past ``Output/largestBacklog``, all of them,
    /// waiting. While the lines wait for room, nothing is written unless `always` (or they
    /// are too many).
    static func write(to fd: Int32, always: Bool) -> Written {
      let count = count
      guard count > 0 else { return .nothing }
      let tooMany = count > Output.largestBacklog
      let waiting = isWaitingForRoom
      guard always || !waiting || tooMany else { return .nothing }
      let (_, error) = write { Output.write($0, to: fd, waiting: tooMany) }
      if let error { return .failed(error) }
      guard Self.count > 0 else {
        // All of it (nearly always).
        if waiting { isWaitingForRoom = false }
        return .all(stoppedWaiting: waiting)
      }
      isWaitingForRoom = true
      return .part
    }

    /// Writes all the lines, waiting for a full pipe as long as it takes.
    static func writeAll(to fd: Int32) -> Written {
      guard count > 0 else { return .nothing }
      let (_, error) = write { Output.write($0, to: fd, waiting: true) }
      let waiting = isWaitingForRoom
      return error.map { .failed($0) } ?? .all(stoppedWaiting: waiting)
    }
  }

  /// Writes `follow: ` with `text` and a newline to standard error, after the lines printed so
  /// far that standard output takes now (lines waiting for a full pipe stay waiting: a note
  /// does not hold the main thread).
  static func note(_ text: String) {
    flushLines()
    var text = "follow: " + text + "\n"
    // Standard error that cannot be written to has nobody to tell.
    _ = text.withUTF8 { write(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
  }

  /// Writes `bytes` to `fd`: all of them, or, unless `waiting`, until a non-blocking `fd` is
  /// full; how many were written, and the error number when it failed.
  private nonisolated static func write(
    _ bytes: UnsafeRawBufferPointer, to fd: Int32, waiting: Bool = true
  ) -> (written: Int, error: Int32?) {
    var written = 0
    while written < bytes.count {
      #if canImport(Glibc)
        let count = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
      #else
        let count = Darwin.write(fd, bytes.baseAddress! + written, bytes.count - written)
      #endif
      if count < 0 && errno == EINTR { continue }
      if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
        guard waiting else { return (written, nil) }
        // Full: wait until it takes more.
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&ready, 1, -1)
        continue
      }
      if count <= 0 { return (written, count < 0 ? errno : EIO) }
      written += count
    }
    return (written, nil)
  }

  /// Ends `follow` when standard output cannot take the lines, as `tail` does: by SIGPIPE when
  /// the pipe's reader left (status 141 in a shell; status 1 when SIGPIPE is ignored), else
  /// with the reason on standard error and status 1.
  static func outputFailed(_ error: Int32) -> Never {
    if error == EPIPE { outputClosed() }
    note("standard output: \(String(cString: strerror(error)))")
    exit(1)
  }

  /// Ends `follow` because the reader of its standard output left.
  static func outputClosed() -> Never {
    raise(SIGPIPE)
    exit(1)
  }

  /// Ends `follow` at once when its standard output is closed, or, once it is a pipe or socket,
  /// when its reader leaves: `follow` may have nothing to write for a long time, and would
  /// otherwise run on until its next line. A thread waits in `poll` for the error the system
  /// reports on the write end of a pipe whose reader has gone; it costs nothing while it
  /// waits, and nothing on the way of the lines.
  static func watchForAClosedOutput() {
    var info = stat()
    guard fstat(STDOUT_FILENO, &info) == 0 else { outputFailed(errno) }
    let type = info.st_mode & S_IFMT
    guard type == S_IFIFO || type == S_IFSOCK else { return }
    let watcher = Thread {
      var output = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
      while true {
        let ready = poll(&output, 1, -1)
        if ready < 0 && errno == EINTR { continue }
        guard ready > 0, output.revents & Int16(POLLERR | POLLHUP) != 0 else { return }
        break
      }
      // Ended on the main actor, after the line being written, if any.
      DispatchQueue.main.async {
        MainActor.assumeIsolated { () -> Void in outputClosed() }
      }
    }
    watcher.start()
  }
}

/// Writes `text` and a newline to standard error, unbuffered.
@MainActor func printError(_ text: String) {
  Output.note(text)
}
