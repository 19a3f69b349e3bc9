/// A stage that `map` or `filter` made, which a `filter` applied to it merges into itself.
///
/// Merged, the two operators run in one closure per subscription: the source calls one stage,
/// which calls the transform (or the first predicate), then the predicate, then the subscriber;
/// apart, the source would call the first stage, which would call the second. That is one
/// closure call fewer per value and one allocation fewer per subscription. Nothing else
/// changes: each subscription still connects the upstream once, and the closures run in the
/// same order, on the same thread, re-entrantly alike.
///
/// The merged closure is made by `fusingFilter`, which the operator that made this stage wrote
/// where the types of both operators are known, so the compiler specializes it as it does every
/// operator's closure. That is why only a `filter` merges: a `map` applied to a stage brings a
/// new type that the upstream operator's code cannot name, and a closure made where only the
/// later operator's code runs cannot name the upstream type; Swift would compile it unspecialized,
/// slower than the call it saves. A merged stage does not merge again.
///
/// Only operators of this module make this stage, so a subclass of `ValueObservable` (such as an
/// `Emitter`) is never one: an operator applied to it connects through its own connect.
@usableFromInline
final class FusibleStage<T>: ValueObservable<T> {
  /// Creates a stage that connects like `connectNext`, and merges a following `filter` with
  /// `fusingFilter`, which returns the merged stage.
  @usableFromInline
  init(
    connectNext: @escaping (_ next: @escaping (T) -> Void) -> Disconnect,
    fusingFilter: @escaping (_ isIncluded: @escaping (T) -> Bool) -> ValueObservable<T>
  ) {
    self.fusingFilter = fusingFilter
    super.init(connectNext: NextConnection(connectNext))
  }

  /// Returns the stream of this stage followed by `filter(isIncluded)`, as one stage.
  @usableFromInline
  let fusingFilter: (_ isIncluded: @escaping (T) -> Bool) -> ValueObservable<T>
}

/// The closures of two merged stages, kept together once per chain, so that each subscription's
/// closure keeps one reference to them beside its subscriber.
@usableFromInline
final class MapFilterFunctions<Input, Output> {
  @usableFromInline let transform: (Input) -> Output
  @usableFromInline let isIncluded: (Output) -> Bool

  @inlinable
  init(_ transform: @escaping (Input) -> Output, _ isIncluded: @escaping (Output) -> Bool) {
    self.transform = transform
    self.isIncluded = isIncluded
  }
}

/// The predicates of two merged `filter` stages; see ``MapFilterFunctions``.
@usableFromInline
final class FilterFilterFunctions<T> {
  @usableFromInline let first: (T) -> Bool
  @usableFromInline let second: (T) -> Bool

  @inlinable
  init(_ first: @escaping (T) -> Bool, _ second: @escaping (T) -> Bool) {
    self.first = first
    self.second = second
  }
}
