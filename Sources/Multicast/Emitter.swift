import Dispatch
import IndefiniteObservable

/// A source of values that many subscribers share and that its owner sends values into.
///
/// ```swift
/// let downloads = Emitter<Int>()
/// var seen: [Int] = []
/// downloads.subscribe { seen.append($0) }
/// downloads.send(1)
/// downloads.send(2)
/// // seen == [1, 2]
/// ```
///
/// An emitter is a `ValueObservable`: operators and code that takes a stream work with it.
/// Hand out `emitter as ValueObservable<T>` to let others subscribe but not send. Beside the
/// plain `subscribe(_:)`, a subscription can ask for a delivery queue, the last
/// value at once (`replayingLast`), a limit on its number of values, or to be bound to an owner
/// object and end when the owner is deallocated.
///
/// - Threading: an emitter is not `Sendable`. It lives in one isolation (an actor, the main
///   actor, or one task's region), with its subscribers and the code that sends, and the compiler
///   checks it: a subscriber closure therefore runs where it was written, synchronously, with no
///   allocation. To send from another thread, hop to the emitter's isolation first
///   (`await MainActor.run { ... }`, a `Task { @MainActor in ... }`), or use a
///   ``SendableEmitter``, whose subscribers each say where they run. Queue subscribers
///   (`subscribe(on:)`) take `@Sendable` closures, since they run on the queue.
/// - Unsubscribing: once `unsubscribe()` returns, no delivery to that subscription
///   begins, including values already waiting on its queue. A delivery that had begun on another
///   thread may still be running.
/// - Re-entrancy: a subscriber may send, subscribe or unsubscribe from its callback. No callback
///   runs while an internal lock is held, so nothing deadlocks. A value sent from a callback is
///   delivered at once to every subscriber, before the outer send goes on (as Combine does):
///   subscribers after the sending one see the inner value first. A subscriber added during a
///   send does not receive that send's value; one removed during it and not yet reached does
///   not either.
/// - Lifetime: the emitter keeps its subscribers' closures until they unsubscribe, reach their
///   limit or lose their owner; then it releases them. A subscription does not keep the emitter
///   alive, and unsubscribing after the emitter is gone does nothing. The emitter keeps the last
///   value sent (see ``lastValue``), for subscribers that ask to replay it, or as many as
///   ``init(keepingLast:)`` says.
public final class Emitter<T>: ValueObservable<T> {
  @usableFromInline let storage: MulticastStorage<T>

  /// Ends every subscription and releases the last value: the subscribers' closures are released
  /// now, and a subscription unsubscribed later finds nothing to end.
  deinit {
    storage.close()
  }

  /// Creates an emitter with no subscribers, that keeps the last `count` values sent: the last
  /// one by default, none, or more, for subscribers that ask to replay them (RxSwift's
  /// `ReplaySubject` with a buffer of `count`).
  ///
  /// An emitter that keeps no value lets go of each value as soon as its send returns (values
  /// waiting on a subscriber's queue are kept until the queue runs them): use it when values
  /// hold objects or memory that should not outlive their delivery, or to stand for a relay or
  /// a subject that keeps nothing.
  ///
  /// ```swift
  /// final class Frame: Sendable {}
  /// let frames = Emitter<Frame>(keepingLast: 0)
  /// frames.send(Frame())  // released when send returns
  /// // frames.lastValue == nil
  ///
  /// let log = Emitter<String>(keepingLast: 3)
  /// for line in ["a", "b", "c", "d"] { log.send(line) }
  /// var replayed: [String] = []
  /// log.subscribe(replayingLast: true) { replayed.append($0) }
  /// // replayed == ["b", "c", "d"]
  /// ```
  ///
  /// - Parameter count: How many of the last values sent the emitter keeps, for ``lastValue``
  ///   (the newest) and for subscribers that say `replayingLast: true`, which receive them
  ///   oldest first before `subscribe` returns (or first on their queue). 0 keeps none: then
  ///   ``lastValue`` is always nil and a replay delivers nothing. A negative count is taken as
  ///   0. Keeping more costs a send no allocation once the buffer has grown; a replay allocates
  ///   one array.
  public init(keepingLast count: Int = 1) {
    let storage = MulticastStorage<T>(kind: .emitter, keeping: count)
    self.storage = storage
    super.init { observer in storage.subscribe(.plain(observer.next)) }
  }

  /// Delivers `value` to every current subscriber and keeps it as the last value (unless the
  /// emitter keeps none: see ``init(keepingLast:)``).
  ///
  /// Synchronous subscribers have been called when this returns (on this thread, in the order
  /// they subscribed); queue subscribers have their delivery enqueued. Callable from any
  /// thread, including from a subscriber (see the type's re-entrancy rule). It allocates nothing
  /// unless a subscriber has a queue or a limited subscription ends during it.
  @inlinable
  public func send(_ value: T) {
    storage.send(value)
  }

  /// The last value sent, or nil before the first send; always nil for an emitter made with
  /// `keepingLast: 0`.
  ///
  /// The emitter keeps it alive until the next send replaces it or the emitter is deallocated.
  public var lastValue: T? {
    storage.read().value
  }
}

extension Emitter: SingleIsolationSource, MulticastSubject {
  /// False: a subscription starts with the next value sent unless it says `replayingLast: true`.
  public static var replaysLastByDefault: Bool { false }

  /// The emitter's subscribers and last value: the module's own, not for use outside it.
  public var _storage: MulticastStorage<T> { storage }
}
