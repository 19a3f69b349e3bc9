#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes `text` and a newline to standard error, unbuffered.
func printError(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { bytes in
    var rest = UnsafeRawBufferPointer(bytes)
    while !rest.isEmpty {
      let written = write(STDERR_FILENO, rest.baseAddress, rest.count)
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { return }
      rest = UnsafeRawBufferPointer(rebasing: rest[written...])
    }
  }
}
