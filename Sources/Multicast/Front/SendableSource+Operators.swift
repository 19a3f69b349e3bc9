import IndefiniteObservable

// The value-stream operators of `ValueObservable`, for the sendable sources: each forwards to the
// stream for the caller's actor (`stream(isolation:)`). An operator added to `ValueObservable`
// gets its forwarder here, in the same form; `.ci/check-parity` fails until it has one.

extension SendableSource {
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

  /// `values` first, then the values, as a stream for the caller's actor (see
  /// `ValueObservable.prepend(_:)`).
  public func prepend(
    isolation: isolated any Actor = #isolation,
    _ values: Value...
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).prepend(values)
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

  /// The latest value of each once all three have one, as a stream for the caller's actor (see
  /// `ValueObservable.combineLatest(_:_:)`).
  public func combineLatest<U, V>(
    isolation: isolated any Actor = #isolation,
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>
  ) -> ValueObservable<(Value, U, V)> {
    stream(isolation: isolation).combineLatest(second, third)
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

extension SendableSource where Value: Equatable {
  /// The values, less those equal to the one before, as a stream for the caller's actor (see
  /// `ValueObservable.removeDuplicates()`).
  public func removeDuplicates(
    isolation: isolated any Actor = #isolation
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).removeDuplicates()
  }
}
