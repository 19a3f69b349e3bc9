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
  /// to standard output, each line after `label` and `: ` when a label is given.
  static func lines(_ bytes: UnsafeRawBufferPointer, label: String?) {
    guard var label else {
      pendingLines.append(contentsOf: bytes)
      if pendingLines.count >= largestBatch { flushLines() }
      return
    }
    label.withUTF8 { label in
      var start = 0
      while start < bytes.count {
        var end = start
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        pendingLines.append(contentsOf: label)
        pendingLines.append(0x3A)
        pendingLines.append(0x20)
        pendingLines.append(
          contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<min(end + 1, bytes.count)]))
        start = end + 1
      }
    }
    if pendingLines.count >= largestBatch { flushLines() }
  }

  /// Writes the lines printed since the last call to standard output, in one `write` when the
  /// pipe takes it all. Called at the end of each turn that printed lines.
  static func flushLines() {
    guard !pendingLines.isEmpty else { return }
    pendingLines.withUnsafeBytes { write($0, to: STDOUT_FILENO) }
    pendingLines.removeAll(keepingCapacity: pendingLines.capacity <= largestBatch * 2)
  }

  /// Writes `follow: ` with `text` and a newline to standard error, after the lines printed so
  /// far.
  static func note(_ text: String) {
    flushLines()
    var text = "follow: " + text + "\n"
    text.withUTF8 { write(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
  }

  private static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) {
    var rest = bytes
    while !rest.isEmpty {
      #if canImport(Glibc)
        let written = Glibc.write(fd, rest.baseAddress, rest.count)
      #else
        let written = Darwin.write(fd, rest.baseAddress, rest.count)
      #endif
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { return }
      rest = UnsafeRawBufferPointer(rebasing: rest[written...])
    }
  }
}

/// Writes `text` and a newline to standard error, unbuffered.
@MainActor func printError(_ text: String) {
  Output.note(text)
}
