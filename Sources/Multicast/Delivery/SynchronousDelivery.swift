/// Where a `@Sendable` subscriber of a source that other threads feed may run: on the thread
/// that sends, synchronously, before `send` returns (`subscribe(on: .sendingThread)`), one of the
/// two kinds of ``DeliveryTarget``.
///
/// ```swift
/// let load = SendableEmitter<Int>()
/// let total = LockedState(0)
/// load.subscribe(on: .sendingThread) { value in total.withLock { $0 += value } }
/// load.send(3)
/// // total.withLock { $0 } == 3
/// ```
///
/// It is the fastest delivery (no hop, no allocation), and the compiler checks that it is
/// sound: the closure is `@Sendable`, so it may capture only what any thread may touch. Values
/// sent from several threads at once reach it on several threads at once.
public struct SynchronousDelivery: Sendable {
  /// The thread that sends.
  public static let sendingThread = SynchronousDelivery()

  private init() {}
}
