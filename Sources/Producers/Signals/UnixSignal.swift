#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A Unix signal number, as ``Signals`` delivers it: the platform's number (`SIGINT`, `SIGUSR1`;
/// `SIGUSR1` is 10 on Linux and 30 on Apple platforms), printed with its C name.
///
/// Any number can be wrapped; ``Signals`` checks, when it makes a stream, that the signals it is
/// given can be caught. Compare a delivery with the platform's names through `rawValue`.
///
/// ```swift
/// let stop = try Signals.deliveries(of: SIGINT, SIGTERM)
/// let subscription = stop.subscribe { signal in
///   print(signal)  // SIGINT or SIGTERM
///   if signal.rawValue == SIGTERM { exit(0) }
/// }
/// ```
public struct UnixSignal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The platform's signal number.
  public var rawValue: Int32

  /// Wraps a signal number; it is not checked here.
  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// The C name of a standard signal (`SIGINT`), or `signal 40` for others.
  public var description: String {
    switch rawValue {
    case SIGHUP: "SIGHUP"
    case SIGINT: "SIGINT"
    case SIGQUIT: "SIGQUIT"
    case SIGILL: "SIGILL"
    case SIGTRAP: "SIGTRAP"
    case SIGABRT: "SIGABRT"
    case SIGBUS: "SIGBUS"
    case SIGFPE: "SIGFPE"
    case SIGKILL: "SIGKILL"
    case SIGUSR1: "SIGUSR1"
    case SIGSEGV: "SIGSEGV"
    case SIGUSR2: "SIGUSR2"
    case SIGPIPE: "SIGPIPE"
    case SIGALRM: "SIGALRM"
    case SIGTERM: "SIGTERM"
    case SIGCHLD: "SIGCHLD"
    case SIGCONT: "SIGCONT"
    case SIGSTOP: "SIGSTOP"
    case SIGTSTP: "SIGTSTP"
    case SIGTTIN: "SIGTTIN"
    case SIGTTOU: "SIGTTOU"
    case SIGURG: "SIGURG"
    case SIGXCPU: "SIGXCPU"
    case SIGXFSZ: "SIGXFSZ"
    case SIGVTALRM: "SIGVTALRM"
    case SIGPROF: "SIGPROF"
    case SIGWINCH: "SIGWINCH"
    case SIGIO: "SIGIO"
    case SIGSYS: "SIGSYS"
    default: "signal \(rawValue)"
    }
  }
}
