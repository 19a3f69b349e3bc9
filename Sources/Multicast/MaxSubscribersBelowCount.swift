/// The error of lowering a multicast source's `maxSubscribers` below the number of subscribers
/// it has: the limit would be broken at once, so it is refused, as Signals refuses it.
///
/// ```swift
/// let emitter = Emitter<Int>()
/// emitter.subscribe { _ in }
/// emitter.subscribe { _ in }
/// do {
///   try emitter.setMaxSubscribers(1)
/// } catch {
///   print(error.subscriberCount)  // 2
/// }
/// ```
///
/// Thrown by `setMaxSubscribers(_:)` of ``Emitter``, ``CurrentValue`` and ``SendableEmitter``,
/// which leave the limit as it was.
public struct MaxSubscribersBelowCount: Error, Equatable, CustomStringConvertible {
  /// The limit that was refused.
  public let requested: Int
  /// The number of subscribers when it was refused (those whose owner is gone not counted).
  public let subscriberCount: Int

  /// Makes the error of refusing `requested` with `subscriberCount` subscribers.
  public init(requested: Int, subscriberCount: Int) {
    self.requested = requested
    self.subscriberCount = subscriberCount
  }

  /// Says what was refused, for a log.
  public var description: String {
    "maxSubscribers \(requested) refused: the source has \(subscriberCount) subscribers"
  }
}
