import IndefiniteObservable

extension ValueObservable where T: Sendable {
  /// The stream's values as an `AsyncSequence`, buffered without bound.
  ///
  /// ```swift
  /// for await count in counts.values {
  ///   if count == 3 { break }  // leaving the loop unsubscribes
  /// }
  /// ```
  ///
  /// Each iteration subscribes once (see ``AsyncValues``). No value is ever dropped: a consumer
  /// slower than the stream lets the buffer grow. Use ``values(bufferingPolicy:)`` to bound it.
  public var values: AsyncValues<T> {
    AsyncValues(self, bufferingPolicy: .unbounded)
  }

  /// The stream's values as an `AsyncSequence` whose buffer follows `bufferingPolicy`.
  ///
  /// - Parameter bufferingPolicy: What to keep while the consumer is busy, as for `AsyncStream`:
  ///   `.unbounded`, `.bufferingNewest(n)` (drop the oldest) or `.bufferingOldest(n)` (drop new
  ///   values). `n` of zero keeps nothing: only values sent while the consumer is waiting arrive.
  public func values(
    bufferingPolicy: AsyncStream<T>.Continuation.BufferingPolicy
  ) -> AsyncValues<T> {
    AsyncValues(self, bufferingPolicy: bufferingPolicy)
  }
}

/// A value stream seen as an `AsyncSequence`, made by
/// ``IndefiniteObservable/ValueObservable/values``.
///
/// - Subscription: each call to `makeAsyncIterator()` (each `for await` loop) subscribes once, on
///   the iterating task; values the stream sends synchronously during subscription are buffered
///   and come first. Two loops over one `AsyncValues` are two subscriptions.
/// - Buffering: values wait in an `AsyncStream` buffer until the loop asks for them, as its
///   buffering policy says (unbounded unless chosen otherwise). The stream's thread never waits
///   for the consumer.
/// - Ending: the sequence never finishes by itself (streams never end). Leaving the loop
///   (`break`, `return`, a thrown error) or cancelling the iterating task unsubscribes from the
///   stream; a value sent after that is dropped, and so are the values still buffered: a
///   cancelled loop ends at its next `next()`, however far behind it was. (Seen with Swift 6.3: a loop written directly in
///   the top-level code of `main.swift` keeps its iterator, and so its subscription, until the
///   program ends; loops in functions, closures and tasks end on time.)
/// - Threading: the stream may send from any thread; the loop body runs on the iterating task.
public struct AsyncValues<Element: Sendable>: AsyncSequence {
  /// Iteration never throws.
  public typealias Failure = Never

  private let observable: ValueObservable<Element>
  private let bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy

  init(
    _ observable: ValueObservable<Element>,
    bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy
  ) {
    self.observable = observable
    self.bufferingPolicy = bufferingPolicy
  }

  /// Subscribes to the stream and returns an iterator over its values.
  public func makeAsyncIterator() -> Iterator {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Element.self, bufferingPolicy: bufferingPolicy)
    let subscription = observable.subscribe { _ = continuation.yield($0) }
    return Iterator(
      base: stream.makeAsyncIterator(), subscription: IteratorSubscription(subscription))
  }

  /// Iterates over the values of one subscription; dropping it unsubscribes.
  ///
  /// The subscription is ended where the iterator lives (the iterating task, in its
  /// isolation), never from the thread that cancels the task: a stream's disconnect may touch
  /// state of the isolation that subscribed, so it is not called from a continuation's
  /// `onTermination`, which runs on the cancelling thread.
  public struct Iterator: AsyncIteratorProtocol {
    /// Iteration never throws.
    public typealias Failure = Never

    @usableFromInline var base: AsyncStream<Element>.Iterator
    @usableFromInline let subscription: IteratorSubscription

    init(base: AsyncStream<Element>.Iterator, subscription: IteratorSubscription) {
      self.base = base
      self.subscription = subscription
    }

    /// The next value, waiting for it if none is buffered; nil once the task is cancelled,
    /// even when values are still buffered (they are dropped with the iterator).
    @inlinable
    public mutating func next() async -> Element? {
      if !Task.isCancelled, let value = await base.next() { return value }
      subscription.end()
      return nil
    }

    /// The next value, waiting on `actor`'s executor: no hop away from the caller's isolation.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @inlinable
    public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
      if !Task.isCancelled, let value = await base.next(isolation: actor) { return value }
      subscription.end()
      return nil
    }
  }
}

/// The subscription of an ``AsyncValues/Iterator``: ended by the iterator's last `next()`, or
/// when the iterator is released, on the iterating task either way.
@usableFromInline final class IteratorSubscription {
  @usableFromInline let subscription: Subscription

  init(_ subscription: Subscription) {
    self.subscription = subscription
  }

  deinit { subscription.unsubscribe() }

  /// Ends the subscription.
  @usableFromInline func end() { subscription.unsubscribe() }
}
