/// One delivery of a timer stream made by ``Timers``.
public struct Tick: Sendable, Hashable, CustomStringConvertible {
  /// Which fire this is, counting from 1 for each subscription; it counts merged fires, so it
  /// can jump by more than one.
  public var index: Int

  /// How many fires this delivery stands for: 1, or more when the delivery queue was too busy
  /// for the timer's pace and Dispatch merged fires.
  public var merged: Int

  /// Creates a tick; timer streams make these, tests and adapters may too.
  public init(index: Int, merged: Int = 1) {
    self.index = index
    self.merged = merged
  }

  /// `tick 3`, or `tick 5 (2 merged)`.
  public var description: String {
    merged == 1 ? "tick \(index)" : "tick \(index) (\(merged) merged)"
  }
}
