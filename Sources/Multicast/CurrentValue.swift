import Dispatch
import IndefiniteObservable
import Observation

/// A value that can be read, written and observed: each subscription
/// receives the current value at once, then every change.
///
/// ```swift
/// let volume = CurrentValue(0.5)
/// var heard: [Double] = []
/// volume.subscribe { heard.append($0) }  // receives 0.5 at once
/// volume.value = 0.8
/// // heard == [0.5, 0.8]
/// ```
///
/// It is a `ValueObservable` whose every subscription starts with the current value:
/// operators compose with it, and its `subscribe(_:)` is the plain way in. Bind
/// it to an object in one line with an owner-bound subscription, which ends when the object is
/// deallocated:
///
/// ```swift
/// final class Label {
///   var text = ""
/// }
/// let title = CurrentValue("Inbox")
/// let label = Label()
/// title.subscribe(label) { label, text in label.text = text }
/// ```
///
/// Every subscribe form takes the options of ``Emitter``'s, with the same labels in the same
/// order: an owner, a queue (`on:`), `replayingLast:` (true by default here: false subscribes to
/// new values only) and `limit:` (`limit: 1` runs a handler once, the current value included).
/// ``unsubscribe(_:)`` and ``unsubscribeAll()`` end subscriptions by owner or all at once.
///
/// By default every write is delivered, equal or not. For `Equatable` values,
/// ``init(_:skipsEqualWrites:)`` makes a holder that skips a write equal to the current value;
/// that also makes two holders bound to each other settle instead of looping.
///
/// - Observation: a holder is `Observable`, and its `value` is observed as a property of an
///   `@Observable` class is. Reading it inside `withObservationTracking` (a SwiftUI view's body
///   included) tracks it: every write that the holder stores (setting ``value``, ``update(_:)``,
///   `send()` of a `Void` holder) calls the `onChange` of each such tracking once, on the
///   writing thread, before the new value is stored and before the subscribers are called. A
///   write skipped as equal (``init(_:skipsEqualWrites:)``) tells no one. Subscribing is not
///   reading: a subscription does not track. The first read of ``value`` gives the holder its
///   Observation registrar (three allocations, once); from then on, each stored write asks it
///   for observers, which costs a write about 40 ns even when there are none (Linux,
///   `Benchmarks/`), and allocates nothing. A holder whose value is never read pays nothing.
/// - Threading: like ``Emitter``, a holder is not `Sendable`: it lives in one isolation with its
///   subscribers and writers, so its subscribers run where they were written, synchronously.
/// - The rules of ``Emitter`` apply: once `unsubscribe()` returns no delivery to that
///   subscription begins; subscribers may write, subscribe and unsubscribe re-entrantly (a write
///   from a subscriber is delivered at once, before the outer write goes on); no callback runs
///   while an internal lock is held, including `==` of ``init(_:skipsEqualWrites:)`` and the
///   body of ``update(_:)``.
/// - Lifetime: the holder keeps its value and its subscribers' closures (until they
///   unsubscribe, reach their limit or lose their owner); a subscription does not keep the
///   holder alive.
public final class CurrentValue<T>: ValueObservable<T> {
  @usableFromInline let storage: MulticastStorage<T>

  /// Ends every subscription and releases the last value: the subscribers' closures are released
  /// now, and a subscription unsubscribed later finds nothing to end.
  deinit {
    storage.close()
  }
  @usableFromInline let isEqual: ((T, T) -> Bool)?

  /// Creates a holder of `value` that delivers every write.
  public convenience init(_ value: T) {
    self.init(value, isEqual: nil)
  }

  /// Creates a holder of `value` that, when `skipsEqualWrites` is true, ignores a write equal to
  /// the current value: it is neither stored nor delivered nor counted.
  ///
  /// `==` is called on the writing thread, outside any lock.
  public convenience init(_ value: T, skipsEqualWrites: Bool) where T: Equatable {
    self.init(value, isEqual: skipsEqualWrites ? { $0 == $1 } : nil)
  }

  private init(_ value: T, isEqual: ((T, T) -> Bool)?) {
    let storage = MulticastStorage<T>(kind: .currentValue, last: value)
    self.storage = storage
    self.isEqual = isEqual
    super.init { observer in storage.subscribe(.plain(observer.next), replay: true) }
  }

  /// The current value. Setting it delivers the new value to every subscriber (unless the
  /// holder skips equal writes and it equals the current value).
  ///
  /// A write from a subscriber is stored and delivered at once, before the outer write goes
  /// on; ``update(_:)`` makes a read-modify-write that such writes cannot interleave.
  ///
  /// Reading it inside `withObservationTracking` (or a SwiftUI view's body) tracks it; see
  /// ``CurrentValue`` for when the observers hear of a write.
  @inlinable
  public var value: T {
    get { storage.readValue() }
    set { storage.write(newValue, unlessEqual: isEqual) }
  }

  /// Changes the value with `body`, atomically: no other write is lost between the read and
  /// the write.
  ///
  /// ```swift
  /// let hits = CurrentValue(0)
  /// hits.update { $0 += 1 }
  /// ```
  ///
  /// `body` runs outside any lock, on the calling thread. When another thread writes between
  /// its read and its write, `body` runs again on the new value, so it must have no other
  /// effect than changing its argument.
  public func update(_ body: (inout T) -> Void) {
    storage.update(unlessEqual: isEqual, body)
  }
}

/// A holder takes part in Observation: its `value` is its one observable property, so that
/// `@Bindable` and SwiftUI's `@Environment(Type.self)` accept it, and `withObservationTracking`
/// and SwiftUI see it change (see ``CurrentValue``).
extension CurrentValue: Observable {}

extension CurrentValue: SingleIsolationSource, MulticastSubject {
  /// True: a subscription starts with the current value unless it says `replayingLast: false`.
  public static var replaysLastByDefault: Bool { true }

  /// The holder's subscribers and value: the module's own, not for use outside it.
  public var _storage: MulticastStorage<T> { storage }
}
