import IndefiniteObservable

/// A source that any thread may send into (``SharedEmitter``, ``SharedCurrentValue``), with the
/// value-stream operators, each bound to the actor of the code that applies it.
///
/// `map`, `filter` and the other operators of `ValueObservable` are offered here directly: each
/// takes the caller's isolation (the compiler passes it, as to `subscribe`) and returns the
/// stream for that actor, ``stream(isolation:)``, with the operator applied. Every subscription
/// to the result runs on that actor, as `subscribe { ... }` does; a value sent from that actor
/// is delivered before `send` returns, one sent elsewhere hops. The result is a
/// `ValueObservable`, not `Sendable`: it stays with the actor that made it.
///
/// ```swift
/// let temperatures = SharedEmitter<Double>()
/// var shown: [String] = []  // main-actor state in top-level code
/// let display = temperatures
///   .map { "\($0) °C" }
///   .removeDuplicates()
///   .subscribe { shown.append($0) }
/// temperatures.send(21)
/// temperatures.send(21)
/// // shown == ["21.0 °C"]
/// display.unsubscribe()
/// ```
///
/// Code on no actor cannot apply them (the compiler says "call to actor-isolated instance
/// method ... in a synchronous nonisolated context"), for the reason it cannot call
/// `subscribe { ... }`: it has no actor to run the subscriber on. Module `Producers` adds the
/// time operators (`debounce`, `throttle`, `delay`) here too, on the same terms.
public protocol SharedSource<Value>: AnyObject, Sendable {
  /// The type of the values.
  associatedtype Value: Sendable

  /// The values, as a stream for the caller's actor: each subscription to it runs there. A
  /// ``SharedCurrentValue``'s starts with the current value, a ``SharedEmitter``'s with the next
  /// value sent.
  func stream(isolation: isolated any Actor) -> ValueObservable<Value>
}

extension SharedSource {
  /// The values transformed by `transform`, as a stream for the caller's actor (see
  /// `ValueObservable.map(_:)`).
  public func map<U>(
    isolation: isolated any Actor = #isolation,
    _ transform: @escaping (Value) -> U
  ) -> ValueObservable<U> {
    stream(isolation: isolation).map(transform)
  }

  /// The values that `isIncluded` accepts, as a stream for the caller's actor (see
  /// `ValueObservable.filter(_:)`).
  public func filter(
    isolation: isolated any Actor = #isolation,
    _ isIncluded: @escaping (Value) -> Bool
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).filter(isIncluded)
  }

  /// The non-nil results of `transform`, as a stream for the caller's actor (see
  /// `ValueObservable.compactMap(_:)`).
  public func compactMap<U>(
    isolation: isolated any Actor = #isolation,
    _ transform: @escaping (Value) -> U?
  ) -> ValueObservable<U> {
    stream(isolation: isolation).compactMap(transform)
  }

  /// The values, less those that `isDuplicate` says repeat the one before, as a stream for the
  /// caller's actor (see `ValueObservable.removeDuplicates(by:)`).
  public func removeDuplicates(
    isolation: isolated any Actor = #isolation,
    by isDuplicate: @escaping (_ previous: Value, _ current: Value) -> Bool
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).removeDuplicates(by: isDuplicate)
  }

  /// Each accumulated result, as a stream for the caller's actor (see
  /// `ValueObservable.scan(_:_:)`).
  public func scan<Result>(
    isolation: isolated any Actor = #isolation,
    _ initialResult: Result,
    _ accumulate: @escaping (Result, Value) -> Result
  ) -> ValueObservable<Result> {
    stream(isolation: isolation).scan(initialResult, accumulate)
  }

  /// The values after the first `count` of each subscription, as a stream for the caller's
  /// actor (see `ValueObservable.dropFirst(_:)`).
  public func dropFirst(
    isolation: isolated any Actor = #isolation,
    _ count: Int = 1
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).dropFirst(count)
  }

  /// At most the first `maxLength` values of each subscription, as a stream for the caller's
  /// actor (see `ValueObservable.prefix(_:)`).
  public func prefix(
    isolation: isolated any Actor = #isolation,
    _ maxLength: Int
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).prefix(maxLength)
  }

  /// The elements of `values` first, then the values, as a stream for the caller's actor (see
  /// `ValueObservable.prepend(_:)`).
  public func prepend<S: Sequence>(
    isolation: isolated any Actor = #isolation,
    _ values: S
  ) -> ValueObservable<Value> where S.Element == Value {
    stream(isolation: isolation).prepend(values)
  }

  /// The values and those of `others`, as they come, as a stream for the caller's actor (see
  /// `ValueObservable.merge(with:)`).
  public func merge(
    isolation: isolated any Actor = #isolation,
    with others: ValueObservable<Value>...
  ) -> ValueObservable<Value> {
    ([stream(isolation: isolation)] + others).merge()
  }

  /// The latest value of each once both have one, as a stream for the caller's actor (see
  /// `ValueObservable.combineLatest(_:)`).
  public func combineLatest<U>(
    isolation: isolated any Actor = #isolation,
    _ other: ValueObservable<U>
  ) -> ValueObservable<(Value, U)> {
    stream(isolation: isolation).combineLatest(other)
  }

  /// The values paired in order with those of `other`, as a stream for the caller's actor (see
  /// `ValueObservable.zip(_:)`).
  public func zip<U>(
    isolation: isolated any Actor = #isolation,
    _ other: ValueObservable<U>
  ) -> ValueObservable<(Value, U)> {
    stream(isolation: isolation).zip(other)
  }

  /// The values of the stream that `transform` makes of the latest value, as a stream for the
  /// caller's actor (see `ValueObservable.flatMapLatest(_:)`).
  public func flatMapLatest<U>(
    isolation: isolated any Actor = #isolation,
    _ transform: @escaping (Value) -> ValueObservable<U>
  ) -> ValueObservable<U> {
    stream(isolation: isolation).flatMapLatest(transform)
  }
}

extension SharedSource where Value: Equatable {
  /// The values, less those equal to the one before, as a stream for the caller's actor (see
  /// `ValueObservable.removeDuplicates()`).
  public func removeDuplicates(
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).removeDuplicates()
  }
}
