import Dispatch
import Foundation

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
/// On the main actor, where every line is printed.
@MainActor enum Output {
  /// The lines printed since the last ``flushLines()``, with their newlines.
  private static var pendingLines: [UInt8] = []
  /// Past this many bytes, lines are written without waiting for the end of the turn.
  private static let largestBatch = 1 << 16

  /// Adds `text` and a newline to what the next ``flushLines()`` writes to standard output.
  static func line(_ text: String) {
    pendingLines.append(contentsOf: text.utf8)
    pendingLines.append(0x0A)
    if pendingLines.count >= largestBatch { flushLines() }
  }

  /// Adds `bytes`, complete lines with their newlines, to what the next ``flushLines()`` writes
  /// to standard output, as they are.
  static func lines(_ bytes: UnsafeRawBufferPointer) {
    pendingLines.append(contentsOf: bytes)
    if pendingLines.count >= largestBatch { flushLines() }
  }

  /// Writes the lines printed since the last call to standard output, in one `write` when the
  /// pipe takes it all. Called at the end of each turn that printed lines.
  static func flushLines() {
    guard !pendingLines.isEmpty else { return }
    if let error = writeOut(pendingLines) { outputFailed(error) }
    pendingLines.removeAll(keepingCapacity: pendingLines.capacity <= largestBatch * 2)
  }

  /// Writes `follow: ` with `text` and a newline to standard error, after the lines printed so
  /// far.
  static func note(_ text: String) {
    flushLines()
    var text = "follow: " + text + "\n"
    // Standard error that cannot be written to has nobody to tell.
    _ = text.withUTF8 { write(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
  }

  /// Writes all of `bytes` to standard output; the error number when it could not. Not isolated:
  /// a closure made on the main actor and handed to `withUnsafeBytes` checks at each call that
  /// it runs there.
  private nonisolated static func writeOut(_ bytes: [UInt8]) -> Int32? {
    bytes.withUnsafeBytes { write($0, to: STDOUT_FILENO) }
  }

  /// Writes all of `bytes` to `fd`; the error number when it could not.
  private nonisolated static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
    var rest = bytes
    while !rest.isEmpty {
      #if canImport(Glibc)
        let written = Glibc.write(fd, rest.baseAddress, rest.count)
      #else
        let written = Darwin.write(fd, rest.baseAddress, rest.count)
      #endif
      if written < 0 && errno == EINTR { continue }
      if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
        // A non-blocking descriptor handed to us, full: wait until it takes more.
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&ready, 1, -1)
        continue
      }
      if written <= 0 { return written < 0 ? errno : EIO }
      rest = UnsafeRawBufferPointer(rebasing: rest[written...])
    }
    return nil
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
