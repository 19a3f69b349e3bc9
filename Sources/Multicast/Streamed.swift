import IndefiniteObservable

/// A stored property whose value is streamed: Combine's `@Published`, synchronous, on one actor.
///
/// `$name` is the stream of the property: each subscription receives the current value at
/// once, then every write, before the write returns. Writes can stay private while the stream
/// is public, since the stream is read-only:
///
/// ```swift
/// @MainActor final class Counter {
///   @Streamed private(set) var count = 0
///   func increment() { count += 1 }
/// }
/// let counter = Counter()
/// var shown: [Int] = []
/// counter.$count.subscribe { shown.append($0) }  // receives 0 at once
/// counter.increment()
/// // shown == [0, 1]; `counter.count = 5` does not compile outside `Counter`
/// ```
///
/// The property is a ``CurrentValue`` underneath; `$name` is that holder as a
/// `ValueObservable`, so operators, `values`, a `SubscriptionBag` and `dropFirst()` (for the
/// writes only) work with it, and no caller can write through it.
///
/// - Threading: like ``CurrentValue``, not `Sendable`: the property, its writers and its
///   subscribers live in one isolation (a `@MainActor` view model, an actor), and subscribers
///   run synchronously on the writing thread. A property written from other threads is a
///   ``SendableCurrentValue``.
/// - SwiftUI and Observation: the property is observed as a property of an `@Observable` class
///   is, through its ``CurrentValue``. A SwiftUI view whose body reads it is rendered again when
///   it is written, and `withObservationTracking` that reads it calls `onChange` once at the next
///   write that is stored (not at a write skipped as equal), before the value is stored. Each
///   property is tracked alone: a view that reads one is not told of writes to another. So
///   Combine's `ObservableObject` is not needed: the class declares `Observable` (no macro, no
///   requirement) for `@Environment(Model.self)` and `@Bindable`, and a view keeps it in
///   `@State` where it kept a `@StateObject`. In an `@Observable` class, mark the property
///   `@ObservationIgnored`, or the macro's storage clashes with the wrapper's ("invalid
///   redeclaration of synthesized property"); the property is observed without the macro.
/// - Differences from `@Published`: a subscriber runs after the new value is stored (Combine's
///   runs in `willSet`, before), so it reads the new value from the object too; Observation's
///   observers hear of the write before it is stored, as with `@Observable`.
/// - Lifetime: the stream and its subscriptions do not keep the object; the object's property
///   keeps its subscribers' closures until they end (see ``CurrentValue``). A copy of the
///   wrapper (a copy of a struct that has the property) shares the value and its subscribers.
@propertyWrapper
public struct Streamed<Value> {
  private let current: CurrentValue<Value>

  /// Creates the property with its first value; every write is delivered, equal or not.
  public init(wrappedValue: Value) {
    current = CurrentValue(wrappedValue)
  }

  /// Creates the property with its first value; when `skipsEqualWrites` is true, a write equal
  /// to the current value is ignored (see ``CurrentValue/init(_:skipsEqualWrites:)``).
  public init(wrappedValue: Value, skipsEqualWrites: Bool) where Value: Equatable {
    current = CurrentValue(wrappedValue, skipsEqualWrites: skipsEqualWrites)
  }

  /// The value. Setting it stores the value, then calls the subscribers of ``projectedValue``
  /// with it before returning. Reading it inside `withObservationTracking` (or a SwiftUI view's
  /// body) tracks it, and setting it tells those observers first (see ``CurrentValue``).
  public var wrappedValue: Value {
    get { current.value }
    nonmutating set { current.value = newValue }
  }

  /// The stream of the value, `$name`: the current value at once, then every write. Read-only:
  /// it cannot write the property.
  public var projectedValue: ValueObservable<Value> {
    current
  }
}
