import IndefiniteObservable

// The forwarders of the operators that issue 33 added to `ValueObservable`, beside those of
// `SendableSource+Operators.swift` and in the same form, each bound to the actor of the code that
// applies it; `.ci/check-parity` checks both files.

extension SendableSource {
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
