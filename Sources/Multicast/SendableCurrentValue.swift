import Dispatch
import IndefiniteObservable
import Observation

/// A current value that any thread may read, write and update, and whose subscribers each run
/// where they were written: ``CurrentValue`` for values that other threads write.
///
/// ```swift
/// let progress = SendableCurrentValue(0)
/// var shown: [Int] = []  // main-actor state in top-level code
/// progress.subscribe { shown.append($0) }  // the current value at once, then each change
/// progress.update { $0 += 10 }  // from any thread; atomic
/// // shown == [0, 10]
/// ```
///
/// It is `Sendable`: keep it in a `static let`, hand it to a queue, write it from several
/// threads at once. ``update(isolation:_:)`` is an atomic read-modify-write: concurrent updates
/// never lose one another's changes. Subscribing follows ``SendableEmitter``:
///
/// - `subscribe { ... }` and `subscribe(owner) { ... }` bind the subscriber to the caller's
///   actor. It runs there: before the write returns when the writing thread runs that actor
///   (statically, or as far as can be checked at run time: see the Guarantees guide), after a
///   hop otherwise, in the order written.
/// - `subscribe(on: queue) { ... }` and `subscribe(on: .sendingThread) { ... }` take a
///   `@Sendable` subscriber.
/// - The operators of ``SendableSource`` start from the current value, on the caller's actor.
///
/// Every subscription starts with the current value, unless it says `replayingLast: false`.
/// Values written from other threads meanwhile arrive after it, never before.
///
/// - Observation: a holder is `Observable`, and its `value` is observed as ``CurrentValue``'s is,
///   from any thread: a read inside `withObservationTracking` on one thread tracks it, and the
///   next write stored by any thread calls that tracking's `onChange` (which is `@Sendable`), on
///   the writing thread, before the value is stored. Observation's registrar is `Sendable`, and
///   it calls its observers outside the holder's lock. Two rules come from writes racing on
///   several threads. Observation calls `onChange` before it ends the tracking, so the writes
///   that other threads store while one writer's call runs call it again, as they would for any
///   observable object written from several threads at once: `onChange` is heard at least once,
///   and once only when writes do not race. A write skipped as equal tells no one,
///   unless another thread's write is stored between its comparison and its store: then it
///   compares again, and its observers have been told, beside that write's own telling. SwiftUI
///   reads its views' models on the main actor: write a holder that views read there.
/// - Threading: every member may be used from any thread, at once. Writes from one thread reach
///   each subscriber in the order written. No callback runs while an internal lock is held,
///   including `==` of ``init(_:skipsEqualWrites:)`` and the body of ``update(isolation:_:)``.
/// - Unsubscribing: once `unsubscribe()` returns, no delivery to that subscription begins,
///   including values waiting for their hop or on their queue.
/// - Lifetime: as ``CurrentValue``'s; a subscription does not keep the holder alive, and the
///   holder's deinit ends every subscription.
public final class SendableCurrentValue<T: Sendable>: SendableSource, MulticastSubject {
  let storage: MulticastStorage<T>
  private let isEqual: (@Sendable (T, T) -> Bool)?

  /// Ends every subscription and releases the value.
  deinit {
    storage.close()
  }

  /// Creates a holder of `value` that delivers every write.
  public convenience init(_ value: T) {
    self.init(value, isEqual: nil)
  }

  /// Creates a holder of `value` that, when `skipsEqualWrites` is true, ignores a write equal to
  /// the current value: it is neither stored nor delivered nor counted. `==` is called on the
  /// writing thread, outside any lock.
  public convenience init(_ value: T, skipsEqualWrites: Bool) where T: Equatable {
    let isEqual: @Sendable (T, T) -> Bool = { $0 == $1 }
    self.init(value, isEqual: skipsEqualWrites ? isEqual : nil)
  }

  private init(_ value: T, isEqual: (@Sendable (T, T) -> Bool)?) {
    storage = MulticastStorage<T>(kind: .sendableCurrentValue, last: value)
    self.isEqual = isEqual
  }

  /// The current value. Setting it delivers the new value to every subscriber (unless the
  /// holder skips equal writes and it equals the current value), from any thread.
  ///
  /// A write replaces what another thread wrote meanwhile; use ``update(isolation:_:)`` to
  /// change the value from what it is.
  ///
  /// Reading it inside `withObservationTracking`, on any thread, tracks it; see
  /// ``SendableCurrentValue`` for when the observers hear of a write.
  public var value: T {
    get { storage.readValue() }
    set { write(newValue, isolation: nil) }
  }

  /// Writes `value`, as setting ``value`` does, with the caller's isolation, which the compiler
  /// passes: a subscriber bound to the caller's actor has been called when this returns.
  public func send(_ value: T, isolation: isolated (any Actor)? = #isolation) {
    write(value, isolation: isolation)
  }

  private func write(_ value: T, isolation: (any Actor)?) {
    SendingIsolation.with(isolation) { storage.write(value, unlessEqual: isEqual) }
  }

  /// Changes the value with `body`, atomically: no write from any thread is lost between the
  /// read and the write.
  ///
  /// ```swift
  /// let hits = SendableCurrentValue(0)
  /// DispatchQueue.concurrentPerform(iterations: 100) { _ in hits.update { $0 += 1 } }
  /// // hits.value == 100
  /// ```
  ///
  /// `body` runs on the calling thread, outside any lock. When another thread writes between its
  /// read and its write, `body` runs again on the new value, so it must have no other effect
  /// than changing its argument.
  ///
  /// - Parameters:
  ///   - isolation: The caller's isolation, which the compiler passes.
  ///   - body: Changes the value in place.
  public func update(isolation: isolated (any Actor)? = #isolation, _ body: (inout T) -> Void) {
    SendingIsolation.with(isolation) { storage.update(unlessEqual: isEqual, body) }
  }
}

/// A holder takes part in Observation, from any thread: its `value` is its one observable
/// property (see ``SendableCurrentValue``).
extension SendableCurrentValue: Observable {}

extension SendableCurrentValue {
  /// True: a subscription starts with the current value unless it says `replayingLast: false`.
  public static var replaysLastByDefault: Bool { true }

  /// The holder's subscribers and value: the module's own, not for use outside it.
  public var _storage: MulticastStorage<T> { storage }
}
