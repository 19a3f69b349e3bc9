/// Why ``Timers`` refused to make a timer stream.
public enum TimerError: Error, Hashable, CustomStringConvertible {
  /// The interval or delay was zero or negative (a repeating timer needs a positive interval).
  case notPositive(Duration)
  /// The interval given in seconds was NaN or infinite.
  case notFinite(Double)
  /// The interval or delay does not fit in Dispatch's nanosecond count (about 292 years).
  case tooLong(Duration)
  /// The leeway was negative.
  case negativeLeeway(Duration)

  /// A sentence saying what was wrong.
  public var description: String {
    switch self {
    case .notPositive(let duration): "timer interval must be positive, not \(duration)"
    case .notFinite(let seconds):
      "timer interval must be a finite number of seconds, not \(seconds)"
    case .tooLong(let duration): "timer interval \(duration) is too long for Dispatch"
    case .negativeLeeway(let duration): "timer leeway must not be negative, not \(duration)"
    }
  }
}
