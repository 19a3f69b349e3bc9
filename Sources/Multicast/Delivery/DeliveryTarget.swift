import Dispatch

/// Where a `@Sendable` subscriber runs when it is not bound to an actor: a `DispatchQueue`, or
/// the sending thread (``SynchronousDelivery/sendingThread``). It is the type of the `on:`
/// argument of every source's `subscribe(on:)` (a ``TopicBus``'s topics included), so that each
/// is written once for both.
///
/// ```swift
/// let load = SendableEmitter<Int>()
/// load.subscribe(on: .global()) { print("on a queue", $0) }
/// load.subscribe(on: .sendingThread) { print("before send returns", $0) }
/// ```
///
/// `on: .main`, `on: .global()`, `on: .global(qos:)` and `on: .sendingThread` are written as
/// with a concrete type. The conformances are the module's own: `DispatchQueue` and
/// ``SynchronousDelivery``; another type is refused with a message that names them.
public protocol DeliveryTarget: Sendable {
  /// The queue each value is delivered on, or nil for the sending thread: the module's own, not
  /// for use outside it.
  var _queue: DispatchQueue? { get }
}

extension DispatchQueue: DeliveryTarget {
  /// This queue: the module's own, not for use outside it.
  public var _queue: DispatchQueue? { self }
}

extension SynchronousDelivery: DeliveryTarget {
  /// Nil, for the sending thread: the module's own, not for use outside it.
  public var _queue: DispatchQueue? { nil }
}

extension DeliveryTarget where Self == DispatchQueue {
  /// The main queue, for `on: .main`.
  public static var main: DispatchQueue { DispatchQueue.main }

  /// A global concurrent queue, for `on: .global()`.
  ///
  /// - Parameter qos: The queue's quality of service, as for `DispatchQueue.global(qos:)`.
  public static func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue {
    DispatchQueue.global(qos: qos)
  }
}

extension DeliveryTarget where Self == SynchronousDelivery {
  /// The thread that sends, for `on: .sendingThread`.
  public static var sendingThread: SynchronousDelivery { SynchronousDelivery.sendingThread }
}
