import IndefiniteObservable

extension ValueObservable {
  /// A stream of the elements of a non-throwing `AsyncSequence`.
  ///
  /// ```swift
  /// let (numbers, input) = AsyncStream.makeStream(of: Int.self)
  /// let stream = ValueObservable(numbers)
  /// ```
  ///
  /// - Subscription: each subscription starts a task that iterates `sequence` and sends each
  ///   element to the observer; `unsubscribe()` cancels the task. Subscribing returns at once;
  ///   the first element arrives when the sequence produces it. Subscribing twice iterates twice:
  ///   a single-pass sequence such as `AsyncStream` must have one subscriber at a time (an
  ///   `AsyncStream` traps when two tasks wait on it).
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes): each subscription's task iterates `sequence` on that actor, and its subscriber
  ///   runs there, one element at a time and in order.
  /// - Unsubscribe: from any thread; once it returns, no element is sent (one being sent may
  ///   finish). When the sequence ends, the stream simply sends nothing more.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  public convenience init<S: AsyncSequence & Sendable>(
    _ sequence: S, isolation: isolated any Actor = #isolation
  ) where S.Element == T, S.Failure == Never, T: Sendable {
    // A sequence that cannot fail never reaches `onError`.
    self.init(sequence, isolation: isolation, onError: { _ in })
  }

  /// A stream of the elements of any `AsyncSequence`; an error it throws goes to `onError`.
  ///
  /// Value streams have no error channel, so a thrown error ends that subscription's iteration
  /// and is handed to `onError`, on the iterating task, once; the stream then sends nothing more
  /// to that subscriber. An error caused by `unsubscribe()` cancelling the task is not reported.
  /// Everything else is as for ``init(_:isolation:)``.
  ///
  /// ```swift
  /// let stream = ValueObservable(lines) { error in print("lines failed: \(error)") }
  /// ```
  public convenience init<S: AsyncSequence & Sendable>(
    _ sequence: S, isolation: isolated any Actor = #isolation,
    onError: @escaping @Sendable (any Error) -> Void
  ) where S.Element == T, T: Sendable {
    self.init { observer in
      let gate = ObserverGate(isolation: isolation, observer.next)
      let task = Task {
        _ = isolation  // runs the task on the stream's actor
        do {
          for try await element in sequence {
            guard gate.send(element) else { return }
          }
        } catch {
          if !gate.isClosed { onError(error) }
        }
      }
      return {
        gate.close()
        task.cancel()
      }
    }
  }
}
