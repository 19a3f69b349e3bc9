/// What `follow` was asked to do, parsed from its command line.
struct Options: Equatable {
  /// The files to follow, in order; `-` is standard input. Empty means the built-in demo.
  var paths: [String] = []
  /// Print a heartbeat on standard error when no line arrived for this long; nil means never.
  var heartbeat: Duration? = nil
  /// How long a rotated-away file must stay quiet before it is closed.
  var rotateWait: Duration = .seconds(2)
  /// Whether `--rotate-wait` was on the command line (the demo picks its own otherwise).
  var rotateWaitWasGiven = false
  /// How many of the last lines of each file to print at the start.
  var lines = 0
  /// Where to record and find the positions reached, to go on after a restart.
  var statePath: String? = nil
  /// Print the usage text and exit.
  var help = false
  /// Print the version and exit.
  var version = false

  /// The name of standard input on the command line.
  static let standardInput = "-"

  /// The version `follow --version` prints: the package's.
  static let versionText = "follow (IndefiniteObservable) 5.0.0"

  static let usage = """
    usage: follow [OPTION]... [FILE]...

    Prints the lines appended to each FILE as they arrive, like tail -F, prefixed with the
    file's name when there are several. With FILE -, reads standard input. With no FILE, runs a
    short demo on a log it writes and rotates itself.

    Names are retried, like tail -F: a FILE that is missing, a directory or a dangling
    symbolic link (its directory may be missing too), at the start or later, is said once on
    standard error, looked at again every 250ms, and followed from its start once a file is
    there.

    Rotation: when a FILE is renamed away, replaced or deleted, the old file is read until it
    has been quiet for --rotate-wait, and the new file at the path is followed from its start,
    once the old file has been read to its end (each writer's lines come out in the order it
    wrote them). A file truncated in place, or truncated and written again past the position
    read, is read again from its start.

    Whole lines: a last line without a newline is held until its newline comes, however late
    (a writer whose output goes to a file writes in blocks that cut lines anywhere). It is
    printed unfinished, once, only when nothing more of it can come: at exit (without
    --state: with it, the state records where the line begins and the next run prints it
    whole), when its rotated-away file is closed, when its file is truncated, and at the end of
    standard input.

    options:
      -n, --lines N           start with the last N lines of each FILE (default 0: only what
                              is appended from now on); standard input through a pipe: print
                              its last N lines at its end, like tail -n
          --state FILE        record in FILE how far each FILE was printed (at least once a
                              second, and at exit); started again with the same FILE, print
                              what was appended meanwhile, rotated-away files first, then go on
          --heartbeat DURATION
                              say "idle" on standard error when no line arrived for DURATION
          --rotate-wait DURATION
                              keep reading a rotated-away file until quiet this long
                              (default 2s; 0s switches at once, like tail -F)
      -h, --help              show this text and exit
          --version           show the version and exit
      --                      every argument after it is a FILE

    Options take their value as --option VALUE or --option=VALUE (-n N or -nN).
    DURATION is a number with a unit: 250ms, 5s, 2m.

    Standard output carries only the lines; notes, the heartbeat and the summary go to standard
    error, prefixed "follow:". With several FILEs, each line is prefixed with its FILE's name
    (standard input is "standard input").

    A rewrite that puts back, before the position read, the very bytes that were there cannot
    be told from growth; follow then goes on from that position. The state check covers up to
    4 KiB before each recorded position; follow says so when it has nothing to compare.

    signals: SIGHUP reopens every FILE; SIGINT or SIGTERM reads every open file to its
    present end (for at most 2s: lines already written are printed, even those of a file
    deleted meanwhile), prints a summary and exits with 0; a second one stops at once.

    A closed standard output ends follow at once, like tail: when the reader of its pipe left,
    by SIGPIPE (status 141 in a shell; 1 when SIGPIPE is ignored); when it is closed, with
    "standard output: Bad file descriptor" and status 1.

    exit status: 0 when stopped by a signal, at the end of standard input when it was the only
    FILE, or at the end of the demo; 1 when the state file could not be written at exit, the
    output is closed, or the demo lost or doubled a line; 2 on bad usage, a FILE that exists
    but cannot be opened, or a --state FILE that is a directory, a pipe or a device.
    """

  /// What `follow` prints for a usage mistake: the mistake and where to look, not the whole
  /// usage.
  static func usageMistake(_ error: UsageError) -> String {
    "\(error)\nTry 'follow --help' for more information."
  }
}

/// A command-line mistake, reported with exit status 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
  var description: String
}

extension Options {
  /// Parses `arguments` (without the program name).
  init(parsing arguments: [String]) throws(UsageError) {
    var remaining = arguments[...]
    var onlyPaths = false
    while let argument = remaining.popFirst() {
      if onlyPaths || !argument.hasPrefix("-") || argument == Self.standardInput {
        paths.append(argument)
        continue
      }
      if argument == "--" {
        onlyPaths = true
        continue
      }
      // --name=value, -nVALUE, or a name whose value is the next argument.
      var name = argument
      var attached: String? = nil
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        attached = String(argument[argument.index(after: equals)...])
      } else if argument.hasPrefix("-n"), argument.count > 2 {
        name = "-n"
        attached = String(argument.dropFirst(2))
      }
      func value(_ what: String) throws(UsageError) -> String {
        if let attached { return attached }
        guard let next = remaining.popFirst() else {
          throw UsageError(description: "option '\(name)' needs \(what)")
        }
        return next
      }
      func noValue() throws(UsageError) {
        if attached != nil { throw UsageError(description: "option '\(name)' takes no value") }
      }
      switch name {
      case "-h", "--help":
        try noValue()
        help = true
      case "--version":
        try noValue()
        version = true
      case "--heartbeat":
        let duration = try Self.duration(value("a duration, like 5s"), for: name)
        guard duration > .zero else {
          throw UsageError(description: "option '--heartbeat' must be longer than 0s")
        }
        heartbeat = duration
      case "--rotate-wait":
        rotateWait = try Self.duration(value("a duration, like 2s"), for: name)
        rotateWaitWasGiven = true
      case "-n", "--lines":
        let text = try value("a number of lines, like 10")
        guard let count = Int(text), count >= 0 else {
          throw UsageError(description: "option '\(name)': '\(text)' is not a number of lines")
        }
        lines = count
      case "--state":
        let path = try value("a file name")
        guard !path.isEmpty else {
          throw UsageError(description: "option '--state' needs a file name")
        }
        statePath = path
      default:
        throw UsageError(description: "unknown option '\(name)'")
      }
    }
    if paths.filter({ $0 == Self.standardInput }).count > 1 {
      throw UsageError(description: "standard input (-) can be followed only once")
    }
    if statePath != nil && paths.isEmpty && !help && !version {
      throw UsageError(description: "option '--state' needs a FILE to follow")
    }
  }

  /// Parses a duration such as `250ms`, `5s`, `1.5s` or `2m`.
  static func duration(_ text: String, for option: String) throws(UsageError) -> Duration {
    let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
    for unit in units where text.hasSuffix(unit.suffix) {
      let number = text.dropLast(unit.suffix.count)
      if let value = Double(number), value.isFinite, value >= 0, value * unit.seconds < 86_400 {
        return .milliseconds(Int64((value * unit.seconds * 1000).rounded()))
      }
      break
    }
    throw UsageError(
      description: "option '\(option)': '\(text)' is not a duration (a number with ms, s or m: 5s)")
  }

  /// A duration the way the options are written: `2m`, `5s`, `1.5s` or `250ms`.
  static func text(of duration: Duration) -> String {
    let milliseconds =
      duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    if milliseconds >= 60_000 && milliseconds % 60_000 == 0 { return "\(milliseconds / 60_000)m" }
    if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
    if milliseconds > 1000 && milliseconds % 100 == 0 {
      return "\(milliseconds / 1000).\(milliseconds % 1000 / 100)s"
    }
    return "\(milliseconds)ms"
  }
}
