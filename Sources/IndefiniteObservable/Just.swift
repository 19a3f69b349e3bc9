/// A stream that delivers one value to each subscriber, as it subscribes; Combine's `Just`.
///
/// ```swift
/// var greetings: [String] = []
/// Just("hello").map { $0.uppercased() }.subscribe { greetings.append($0) }
/// // greetings == ["HELLO"]
/// ```
///
/// Each subscription receives ``output`` synchronously, before `subscribe` returns, and nothing
/// after it: with no completion, the subscription simply has nothing more to deliver, and
/// unsubscribing it does nothing. Use it where a stream is expected and the value is known:
/// a default in `flatMapLatest`, the first value of a `merge`, a stub in a test.
///
/// - Threading: the value is delivered on the subscribing thread, before `subscribe` returns.
/// - Lifetime: it keeps ``output`` alive as long as it lives.
/// - Name: a file that imports Combine (or OpenCombine) too sees two `Just`s, and the module's
///   name cannot tell them apart, because the class ``IndefiniteObservable`` hides it. Name ours
///   once in a file that does not import Combine (`typealias ValueJust<T> = Just<T>`), or write
///   `Combine.Just` for Combine's.
public final class Just<T>: ValueObservable<T> {
  /// The value each subscriber receives.
  public let output: T

  /// Creates a stream that delivers `output` to each subscriber.
  @inlinable
  public init(_ output: T) {
    self.output = output
    super.init(
      connectNext: NextConnection { next in
        next(output)
        return noopDisconnect
      })
  }
}
