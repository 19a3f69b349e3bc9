/// Why ``Timers`` refused to make a timer stream.
///
/// Only ``Timers/every(seconds:leeway:clock:isolation:)`` throws, and only ``notFinite(_:)``,
/// quoting the `Double` passed. The other cases were thrown by builds of 5.0 before it was
/// tagged, when `every(_:)` and `after(_:)` refused intervals outside the limits (they now
/// clamp them); they are kept so that code matching them still compiles. The descriptions print
/// a `Duration` exactly, to the attosecond, so that a value just past a limit does not read as
/// the limit.
///
/// A case holding NaN is not equal to itself, as NaN is not; match it with a pattern instead
/// (`case .notFinite(let seconds) where seconds.isNaN`).
public enum TimerError: Error, Hashable, CustomStringConvertible {
  /// The interval of a repeating timer was zero or negative.
  case notPositive(Duration)
  /// The interval of a repeating timer, given in seconds, was zero (of either sign) or negative.
  case notPositiveSeconds(Double)
  /// The interval of a repeating timer was positive but, rounded to the nanosecond, shorter than
  /// ``Timers/minimumInterval``.
  case tooShort(Duration)
  /// The interval given in seconds was positive but, rounded to the nanosecond, shorter than
  /// ``Timers/minimumInterval``.
  case tooShortSeconds(Double)
  /// The interval or delay was, rounded to the nanosecond, longer than
  /// ``Timers/maximumInterval``.
  case tooLong(Duration)
  /// The interval given in seconds was, rounded to the nanosecond, longer than
  /// ``Timers/maximumInterval``.
  case tooLongSeconds(Double)
  /// The interval given in seconds was NaN or infinite (of either sign).
  case notFinite(Double)
  /// The delay of a one-shot timer was negative (zero is allowed).
  case negativeDelay(Duration)
  /// The leeway was negative.
  case negativeLeeway(Duration)

  /// A sentence saying what was wrong, quoting the value that was passed.
  public var description: String {
    switch self {
    case .notPositive(let interval):
      "timer interval must be positive, not \(Self.exact(interval))"
    case .notPositiveSeconds(let seconds):
      "timer interval must be positive, not \(seconds) seconds"
    case .tooShort(let interval):
      "timer interval must be at least \(Self.exact(Timers.minimumInterval)), "
        + "not \(Self.exact(interval))"
    case .tooShortSeconds(let seconds):
      "timer interval must be at least \(Self.exact(Timers.minimumInterval)), "
        + "not \(seconds) seconds"
    case .tooLong(let interval):
      "timer interval or delay must be at most \(Self.exact(Timers.maximumInterval)), "
        + "not \(Self.exact(interval))"
    case .tooLongSeconds(let seconds):
      "timer interval must be at most \(Self.exact(Timers.maximumInterval)), "
        + "not \(seconds) seconds"
    case .notFinite(let seconds):
      "timer interval must be a finite number of seconds, not \(seconds)"
    case .negativeDelay(let delay):
      "timer delay must not be negative, not \(Self.exact(delay))"
    case .negativeLeeway(let leeway):
      "timer leeway must not be negative, not \(Self.exact(leeway))"
    }
  }

  /// `duration` in seconds with every significant digit down to the attosecond: `0.0 seconds`,
  /// `-0.001 seconds`, `2000000000.000000001 seconds` (`Duration`'s own description rounds
  /// that one to `2000000000.0 seconds`). Past `Int64` seconds, where `components` would trap,
  /// `Duration`'s own description.
  private static func exact(_ duration: Duration) -> String {
    let oneSecond = Duration.seconds(1)
    guard duration < .seconds(Int64.max) + oneSecond, duration > .seconds(Int64.min) - oneSecond
    else {
      return duration.description
    }
    let (seconds, attoseconds) = duration.components
    let negative = seconds < 0 || attoseconds < 0
    // Both components have the sign of the duration; their magnitudes fit in UInt64.
    let fraction = String(attoseconds.magnitude)
    var digits = String(repeating: "0", count: 18 - fraction.count) + fraction
    while digits.count > 1 && digits.hasSuffix("0") { digits.removeLast() }
    return "\(negative ? "-" : "")\(seconds.magnitude).\(digits) seconds"
  }
}
