#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Unbuffered writes to standard output and standard error, so that each line reaches a pipe
/// as soon as it is printed (a reader of `follow` sees lines as they arrive).
enum Output {
  /// Writes `text` and a newline to standard output.
  static func line(_ text: String) {
    write(text + "\n", to: STDOUT_FILENO)
  }

  /// Writes `follow: ` with `text` and a newline to standard error.
  static func note(_ text: String) {
    write("follow: " + text + "\n", to: STDERR_FILENO)
  }

  private static func write(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { bytes in
      var rest = UnsafeRawBufferPointer(bytes)
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
}

/// Writes `text` and a newline to standard error, unbuffered.
func printError(_ text: String) {
  Output.note(text)
}
