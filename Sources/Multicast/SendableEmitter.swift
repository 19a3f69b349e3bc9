import Dispatch
import IndefiniteObservable

/// A source of values that many subscribers share, that any thread may send into, and whose
/// subscribers each run where they were written.
///
/// Where ``Emitter`` lives in one isolation with its subscribers, a sendable emitter is `Sendable`:
/// keep it in a `static let`, hand it to a background queue, send from anywhere. Each
/// subscriber says where it runs, and the compiler checks it:
///
/// - `subscribe { ... }` and `subscribe(owner) { ... }` bind the subscriber to the caller's
///   actor (the main actor in top-level code and in `@MainActor` types). It runs there: at once
///   when the value is sent from that actor, otherwise after a hop, in the order sent. Code that
///   is not isolated to an actor cannot call them.
/// - `subscribe(on: queue) { ... }` takes a `@Sendable` subscriber and runs it on `queue`.
///
/// ```swift
/// @MainActor final class StatusLabel {
///   var text = ""
///   init(status: SendableEmitter<String>) {
///     status.subscribe(self) { label, value in label.text = value }  // runs on the main actor
///   }
/// }
/// let status = SendableEmitter<String>()
/// let label = StatusLabel(status: status)
/// status.send("ready")  // sent from the main actor: delivered before send returns
/// // label.text == "ready"
/// ```
///
/// Its subscribe spellings, counters and limits are those of every source of this module
/// (``MulticastSource``, ``SendableSource``). It has the operators of a value stream, each bound
/// to the actor of the code that applies it: `emitter.map { ... }.subscribe { ... }` runs on the
/// caller's actor.
///
/// - Threading: ``send(_:isolation:)``, subscribing and unsubscribing are safe from any thread
///   (subscribing to the caller's actor, from that actor). Values from one thread reach each
///   subscriber in the order that thread sent them.
/// - Unsubscribing: once `unsubscribe()` returns, no delivery to that subscription begins,
///   including values waiting for their hop or on their queue.
/// - Re-entrancy, options and lifetime: as ``Emitter``'s.
public final class SendableEmitter<T: Sendable>: SendableSource, MulticastSubject {
  @usableFromInline let storage: MulticastStorage<T>

  /// Ends every subscription and releases the last value.
  deinit {
    storage.close()
  }

  /// Creates a sendable emitter with no subscribers, that keeps the last `count` values sent
  /// (see ``Emitter/init(keepingLast:)``): the last one by default.
  public init(keepingLast count: Int = 1) {
    storage = MulticastStorage<T>(kind: .sendableEmitter, keeping: count)
  }

  /// Delivers `value` to every current subscriber and keeps it as the last value (unless the
  /// emitter keeps none).
  ///
  /// Subscribers bound to an actor that this thread runs have been called when this returns,
  /// after the values that waited for them: the caller's actor (`isolation`), or, when it is
  /// nil (a `nonisolated` wrapper), the actor recorded by a send or a subscriber's turn further
  /// up this thread, or the main actor when this thread runs the main queue. The others have
  /// their delivery scheduled on their actor or queue. Callable from any thread, including from
  /// a subscriber.
  ///
  /// - Parameters:
  ///   - value: The value to deliver.
  ///   - isolation: The caller's isolation, which the compiler passes.
  @inlinable
  public func send(_ value: T, isolation: isolated (any Actor)? = #isolation) {
    SendingIsolation.with(isolation) { storage.send(value) }
  }

  /// The last value sent, or nil before the first send (always nil when the emitter keeps
  /// none).
  public var lastValue: T? {
    storage.read().value
  }
}

extension SendableEmitter {
  /// False: a subscription starts with the next value sent unless it says `replayingLast: true`.
  public static var replaysLastByDefault: Bool { false }

  /// The emitter's subscribers and last value: the module's own, not for use outside it.
  public var _storage: MulticastStorage<T> { storage }
}
