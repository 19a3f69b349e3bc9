#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A Unix signal number, with names for the standard signals.
///
/// Any number can be wrapped; ``Signals`` checks, when it makes a stream, that the signals it is
/// given can be caught. The names use this platform's numbers (`.user1` is 10 on
/// Linux and 30 on Apple platforms).
///
/// ```swift
/// let stops: [UnixSignal] = [.interrupt, .terminate]
/// print(stops)  // [SIGINT, SIGTERM]
/// ```
public struct UnixSignal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The platform's signal number.
  public var rawValue: Int32

  /// Wraps a signal number; it is not checked here.
  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// `SIGHUP`: the controlling terminal hung up; daemons take it as "reload your configuration".
  public static var hangup: UnixSignal { UnixSignal(rawValue: SIGHUP) }
  /// `SIGINT`: interrupt from the terminal (Control-C).
  public static var interrupt: UnixSignal { UnixSignal(rawValue: SIGINT) }
  /// `SIGQUIT`: quit from the terminal (Control-\); by default it also dumps core.
  public static var quit: UnixSignal { UnixSignal(rawValue: SIGQUIT) }
  /// `SIGILL`: an illegal instruction; a fault of the running thread, not streamable.
  public static var illegalInstruction: UnixSignal { UnixSignal(rawValue: SIGILL) }
  /// `SIGTRAP`: a trace or breakpoint trap.
  public static var trap: UnixSignal { UnixSignal(rawValue: SIGTRAP) }
  /// `SIGABRT`: sent by `abort()`, which kills the process even when it is caught.
  public static var abort: UnixSignal { UnixSignal(rawValue: SIGABRT) }
  /// `SIGBUS`: a bus error (bad memory access); a fault of the running thread, not streamable.
  public static var busError: UnixSignal { UnixSignal(rawValue: SIGBUS) }
  /// `SIGFPE`: an arithmetic fault; a fault of the running thread, not streamable.
  public static var floatingPointException: UnixSignal { UnixSignal(rawValue: SIGFPE) }
  /// `SIGKILL`: kills the process; it cannot be caught, blocked or ignored.
  public static var kill: UnixSignal { UnixSignal(rawValue: SIGKILL) }
  /// `SIGUSR1`: for the application's own use.
  public static var user1: UnixSignal { UnixSignal(rawValue: SIGUSR1) }
  /// `SIGSEGV`: an invalid memory reference; a fault of the running thread, not streamable.
  public static var segmentationViolation: UnixSignal { UnixSignal(rawValue: SIGSEGV) }
  /// `SIGUSR2`: for the application's own use.
  public static var user2: UnixSignal { UnixSignal(rawValue: SIGUSR2) }
  /// `SIGPIPE`: a write to a pipe or socket that nobody reads any more.
  public static var pipe: UnixSignal { UnixSignal(rawValue: SIGPIPE) }
  /// `SIGALRM`: a timer set with `alarm` or `setitimer(ITIMER_REAL)` expired.
  public static var alarm: UnixSignal { UnixSignal(rawValue: SIGALRM) }
  /// `SIGTERM`: a polite request to terminate; what `kill` sends by default.
  public static var terminate: UnixSignal { UnixSignal(rawValue: SIGTERM) }
  /// `SIGCHLD`: a child process exited, stopped or continued.
  public static var child: UnixSignal { UnixSignal(rawValue: SIGCHLD) }
  /// `SIGCONT`: the process was continued after a stop.
  public static var `continue`: UnixSignal { UnixSignal(rawValue: SIGCONT) }
  /// `SIGSTOP`: stops the process; it cannot be caught, blocked or ignored.
  public static var stop: UnixSignal { UnixSignal(rawValue: SIGSTOP) }
  /// `SIGTSTP`: stop from the terminal (Control-Z).
  public static var terminalStop: UnixSignal { UnixSignal(rawValue: SIGTSTP) }
  /// `SIGTTIN`: a background process read from its terminal.
  public static var terminalInput: UnixSignal { UnixSignal(rawValue: SIGTTIN) }
  /// `SIGTTOU`: a background process wrote to its terminal.
  public static var terminalOutput: UnixSignal { UnixSignal(rawValue: SIGTTOU) }
  /// `SIGURG`: urgent (out-of-band) data arrived on a socket.
  public static var urgent: UnixSignal { UnixSignal(rawValue: SIGURG) }
  /// `SIGXCPU`: the CPU time limit (`RLIMIT_CPU`) was exceeded.
  public static var cpuTimeLimit: UnixSignal { UnixSignal(rawValue: SIGXCPU) }
  /// `SIGXFSZ`: the file size limit (`RLIMIT_FSIZE`) was exceeded.
  public static var fileSizeLimit: UnixSignal { UnixSignal(rawValue: SIGXFSZ) }
  /// `SIGVTALRM`: a virtual timer (`setitimer(ITIMER_VIRTUAL)`) expired.
  public static var virtualAlarm: UnixSignal { UnixSignal(rawValue: SIGVTALRM) }
  /// `SIGPROF`: a profiling timer (`setitimer(ITIMER_PROF)`) expired.
  public static var profilingAlarm: UnixSignal { UnixSignal(rawValue: SIGPROF) }
  /// `SIGWINCH`: the terminal window changed size.
  public static var windowSizeChange: UnixSignal { UnixSignal(rawValue: SIGWINCH) }
  /// `SIGIO`: input or output is possible on a descriptor set up for it.
  public static var io: UnixSignal { UnixSignal(rawValue: SIGIO) }
  /// `SIGSYS`: a bad system call.
  public static var badSystemCall: UnixSignal { UnixSignal(rawValue: SIGSYS) }

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
