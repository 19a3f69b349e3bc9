/// Why ``FileDescriptors`` refused a descriptor or an argument, or why reading it stopped.
public enum FileDescriptorError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The descriptor was negative (-1 is what a failed `open` returns).
  case negative(Int32)
  /// The descriptor is not open in this process: never opened, or already closed.
  case notOpen(Int32)
  /// The descriptor names a directory, which cannot be read as a stream of bytes.
  case isDirectory(Int32)
  /// The descriptor was opened write-only, so it cannot be read.
  case notReadable(Int32)
  /// The descriptor was opened read-only, so it cannot be written.
  case notWritable(Int32)
  /// The stream owned the descriptor and already closed it (its last subscription ended).
  case closedByStream(Int32)
  /// The stream could not make the duplicate of the descriptor that a subscription reads
  /// (the process is out of descriptors, say); reported on the status channel.
  case duplicateFailed(Int32, Errno)
  /// A read failed with a system error; the stream stopped reading this subscription.
  case readFailed(Int32, Errno)
  /// The `maximumLineLength` given to ``FileDescriptors/lines(of:ownership:refill:maximumLineLength:)``
  /// was below 1: no line could be delivered.
  case maximumLineLengthNotPositive(Int)

  /// A sentence saying what was wrong.
  public var description: String {
    switch self {
    case .negative(let fd): "file descriptor \(fd) is negative (a failed open?)"
    case .notOpen(let fd): "file descriptor \(fd) is not open"
    case .isDirectory(let fd): "file descriptor \(fd) is a directory"
    case .notReadable(let fd): "file descriptor \(fd) is not open for reading"
    case .notWritable(let fd): "file descriptor \(fd) is not open for writing"
    case .closedByStream(let fd):
      "file descriptor \(fd) was closed by its stream when its last subscription ended"
    case .duplicateFailed(let fd, let errno):
      "cannot duplicate file descriptor \(fd) for a subscription: \(errno)"
    case .readFailed(let fd, let errno): "reading file descriptor \(fd) failed: \(errno)"
    case .maximumLineLengthNotPositive(let length):
      "the maximum line length must be at least 1 byte, not \(length)"
    }
  }
}
