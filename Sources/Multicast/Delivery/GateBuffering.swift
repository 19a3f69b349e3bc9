/// How many values an actor-bound ``ObserverGate`` lets wait for their hop, and which it drops
/// when a subscriber cannot keep up: the choice `AsyncStream`'s buffering policies offer.
///
/// Values sent from another thread wait in the gate until the subscriber's actor takes them, a
/// turn at a time. A subscriber slower than its senders lets them pile up:
///
/// - ``unbounded`` (the default) keeps every value: none is lost, and memory grows for as long
///   as the senders outrun the subscriber.
/// - ``bufferingOldest(_:)`` keeps at most `limit` waiting values and drops each new value that
///   finds them all taken (the values already waiting are delivered).
/// - ``bufferingNewest(_:)`` keeps at most `limit` waiting values and drops the oldest waiting
///   one to make room for each new value (the latest values are delivered).
///
/// ```swift
/// let gate = ObserverGate(isolation: isolation, buffering: try .bufferingNewest(64)) { value in
///   show(value)
/// }
/// ```
///
/// A value sent from the subscriber's own actor never waits for a hop, so the policy never
/// drops it. A dropped value is released on the sending thread, after the gate's lock.
public struct GateBuffering: Sendable, Equatable {
  /// The most values that may wait; `Int.max` for ``unbounded``.
  public let limit: Int
  /// Whether a full buffer drops the oldest waiting value (true) or the new one (false).
  public let dropsOldest: Bool

  private init(limit: Int, dropsOldest: Bool) {
    self.limit = limit
    self.dropsOldest = dropsOldest
  }

  /// Every value waits, however many: nothing is dropped, and memory grows while the senders
  /// outrun the subscriber.
  public static let unbounded = GateBuffering(limit: .max, dropsOldest: false)

  /// At most `limit` values wait; a value sent while they are all taken is dropped.
  ///
  /// - Throws: ``LimitNotPositive`` when `limit` is below 1 (a gate that keeps no value would
  ///   silently deliver nothing that hops).
  public static func bufferingOldest(_ limit: Int) throws(LimitNotPositive) -> GateBuffering {
    guard limit >= 1 else { throw LimitNotPositive(limit: limit) }
    return GateBuffering(limit: limit, dropsOldest: false)
  }

  /// At most `limit` values wait; a value sent while they are all taken takes the place of the
  /// oldest waiting one, which is dropped.
  ///
  /// - Throws: ``LimitNotPositive`` when `limit` is below 1.
  public static func bufferingNewest(_ limit: Int) throws(LimitNotPositive) -> GateBuffering {
    guard limit >= 1 else { throw LimitNotPositive(limit: limit) }
    return GateBuffering(limit: limit, dropsOldest: true)
  }

  /// The error of a buffer limit below 1, with the limit passed.
  public struct LimitNotPositive: Error, Equatable, CustomStringConvertible {
    /// The limit that was passed.
    public let limit: Int

    /// Says what was refused: "buffer limit must be at least 1, not 0".
    public var description: String { "buffer limit must be at least 1, not \(limit)" }
  }
}
