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

  /// The values paired in order with those of `second` and `third`, as a stream for the
  /// caller's actor (see `ValueObservable.zip(_:_:)`).
  public func zip<U, V>(
    isolation: isolated any Actor = #isolation,
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>
  ) -> ValueObservable<(Value, U, V)> {
    stream(isolation: isolation).zip(second, third)
  }

  /// The values paired in order with those of `second`, `third` and `fourth`, as a stream for
  /// the caller's actor (see `ValueObservable.zip(_:_:_:)`).
  public func zip<U, V, W>(
    isolation: isolated any Actor = #isolation,
    _ second: ValueObservable<U>,
    _ third: ValueObservable<V>,
    _ fourth: ValueObservable<W>
  ) -> ValueObservable<(Value, U, V, W)> {
    stream(isolation: isolation).zip(second, third, fourth)
  }

  /// The values of the stream that `transform` makes of the latest value, as a stream for the
  /// caller's actor (see `ValueObservable.flatMapLatest(_:)`).
  public func flatMapLatest<U>(
    isolation: isolated any Actor = #isolation,
    _ transform: @escaping (Value) -> ValueObservable<U>
  ) -> ValueObservable<U> {
    stream(isolation: isolation).flatMapLatest(transform)
  }

  /// The values of every stream that `transform` makes, merged, as a stream for the caller's
  /// actor (see `ValueObservable.flatMap(maxPublishers:_:)`).
  public func flatMap<U>(
    isolation: isolated any Actor = #isolation,
    maxPublishers: Int = .max,
    _ transform: @escaping (Value) -> ValueObservable<U>
  ) -> ValueObservable<U> {
    stream(isolation: isolation).flatMap(maxPublishers: maxPublishers, transform)
  }

  /// The value at `index` of each subscription, as a stream for the caller's actor (see
  /// `ValueObservable.output(at:)`).
  public func output(
    isolation: isolated any Actor = #isolation,
    at index: Int
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).output(at: index)
  }

  /// The values whose positions are in `range`, as a stream for the caller's actor (see
  /// `ValueObservable.output(in:)`).
  public func output<R: RangeExpression>(
    isolation: isolated any Actor = #isolation,
    in range: R
  ) -> ValueObservable<Value> where R.Bound == Int {
    stream(isolation: isolation).output(in: range)
  }

  /// The values in batches of `count`, as a stream for the caller's actor (see
  /// `ValueObservable.collect(_:)`).
  public func collect(
    isolation: isolated any Actor = #isolation,
    _ count: Int
  ) -> ValueObservable<[Value]> {
    stream(isolation: isolation).collect(count)
  }

  /// The values, with side effects on subscribe, each value and unsubscribe, as a stream for
  /// the caller's actor (see `ValueObservable.handleEvents(receiveSubscription:receiveOutput:receiveCancel:)`).
  public func handleEvents(
    isolation: isolated any Actor = #isolation,
    receiveSubscription: (() -> Void)? = nil,
    receiveOutput: ((Value) -> Void)? = nil,
    receiveCancel: (() -> Void)? = nil
  ) -> ValueObservable<Value> {
    stream(isolation: isolation).handleEvents(
      receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
      receiveCancel: receiveCancel)
  }

  /// The values, with a line printed for each subscribe, value and unsubscribe, as a stream
  /// for the caller's actor (see `ValueObservable.print(_:to:)`).
  public func print(
    isolation: isolated any Actor = #isolation,
    _ prefix: String = "",
    to stream: (any TextOutputStream)? = nil
  ) -> ValueObservable<Value> {
    self.stream(isolation: isolation).print(prefix, to: stream)
  }

  /// A connectable stream of the values for the caller's actor (see
  /// `ValueObservable.makeConnectable()`).
  public func makeConnectable(
    isolation: isolated any Actor = #isolation
  ) -> ConnectableObservable<Value> {
    stream(isolation: isolation).makeConnectable()
  }

  /// Writes every value to a property of `object`, held weakly, on the caller's actor (see
  /// `ValueObservable.assign(to:on:)`).
  public func assign<Root: AnyObject>(
    isolation: isolated any Actor = #isolation,
    to keyPath: ReferenceWritableKeyPath<Root, Value>,
    on object: Root
  ) -> Subscription {
    stream(isolation: isolation).assign(to: keyPath, on: object)
  }

  /// The values with `output` in place of each nil, as a stream for the caller's actor (see
  /// `ValueObservable.replaceNil(with:)`).
  public func replaceNil<Wrapped>(
    isolation: isolated any Actor = #isolation,
    with output: Wrapped
  ) -> ValueObservable<Wrapped> where Value == Wrapped? {
    stream(isolation: isolation).replaceNil(with: output)
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
