/// Why ``Signals`` refused to make a signal stream.
public enum SignalError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The number is not a signal of this platform: 0, negative, or above the highest signal
  /// (64 on Linux, 31 on Apple platforms).
  case outOfRange(Int32)
  /// `SIGKILL` or `SIGSTOP`, which the system never lets a process catch.
  case notCatchable(UnixSignal)
  /// `SIGSEGV`, `SIGBUS`, `SIGFPE` or `SIGILL`: they report a fault of the thread that runs,
  /// and a handler that returns makes the faulting instruction run again, so they cannot be
  /// turned into a stream of later deliveries.
  case fault(UnixSignal)
  /// A number the C library keeps for itself (glibc uses 32 and 33 for its threads).
  case reserved(UnixSignal)
  /// The list of signals was empty; such a stream could never deliver.
  case noSignals
  /// The process-wide signal pipe could not be made (out of descriptors, for example).
  case pipeFailed(Errno)

  /// A sentence saying what was wrong.
  public var description: String {
    switch self {
    case .outOfRange(let number):
      "signal number \(number) is out of range: signals are 1...\(UnixSignal.highestNumber)"
    case .notCatchable(let signal): "\(signal) cannot be caught"
    case .fault(let signal):
      "\(signal) reports a fault of the running thread and cannot be delivered as a stream"
    case .reserved(let signal): "\(signal) is reserved by the C library"
    case .noSignals: "no signals given: a signal stream needs at least one"
    case .pipeFailed(let errno): "cannot make the signal pipe: \(errno)"
    }
  }
}
