/// What `follow` was asked to do, parsed from its command line.
struct Options: Equatable {
  /// The files to follow; empty means the built-in demo.
  var paths: [String] = []
  /// Print a heartbeat when nothing arrived for this long; nil means never.
  var heartbeat: Duration? = nil
  /// How long a rotated-away file must stay quiet before it is closed.
  var rotateWait: Duration = .seconds(2)
  /// Whether `--rotate-wait` was on the command line (the demo picks its own otherwise).
  var rotateWaitWasGiven = false
  /// Print the usage text and exit.
  var help = false

  static let usage = """
    usage: follow [--heartbeat DURATION] [--rotate-wait DURATION] [FILE...]

    Prints lines appended to each FILE as they arrive, like tail -F, prefixed with the file's
    name when there are several. Survives log rotation: when a FILE is renamed away, replaced or
    deleted, the old file is read until it has been quiet for --rotate-wait, and the new file at
    the path is followed from its start; a file truncated in place is read again from its start.

    With no FILE, runs a short demo on a log it writes and rotates itself.

    options:
      --heartbeat DURATION    print "-- idle DURATION" when no line arrived for DURATION
      --rotate-wait DURATION  keep reading a rotated-away file until quiet this long
                              (default 2s; 0s switches at once, like tail -F)
      -h, --help              show this text

    DURATION is a number with a unit: 250ms, 5s, 2m.
    signals: SIGHUP reopens every FILE; SIGINT or SIGTERM prints a summary and exits with 0.
    exit status: 0 when stopped by a signal or at the end of the demo, 1 when the demo lost or
    doubled a line, 2 on bad usage or a FILE that cannot be followed.
    """
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
      if onlyPaths || !argument.hasPrefix("-") || argument == "-" {
        paths.append(argument)
        continue
      }
      switch argument {
      case "--":
        onlyPaths = true
      case "-h", "--help":
        help = true
      case "--heartbeat", "--rotate-wait":
        guard let text = remaining.popFirst() else {
          throw UsageError(description: "\(argument) needs a duration, like 5s")
        }
        let duration = try Self.duration(text, for: argument)
        if argument == "--heartbeat" {
          guard duration > .zero else {
            throw UsageError(description: "--heartbeat must be longer than 0s")
          }
          heartbeat = duration
        } else {
          rotateWait = duration
          rotateWaitWasGiven = true
        }
      default:
        throw UsageError(description: "unknown option \(argument)")
      }
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
      description: "\(option): '\(text)' is not a duration (a number with ms, s or m: 5s)")
  }
}
