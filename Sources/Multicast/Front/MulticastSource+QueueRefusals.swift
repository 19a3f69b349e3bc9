import IndefiniteObservable

// Refusals with a message: `on:` and `receive(on:)` take a `DispatchQueue`. Signals users pass
// an `OperationQueue` (`observer.operationQueue`), Combine users an `OperationQueue` or a
// `RunLoop`; without these, the compiler says only "no exact matches in call to instance method
// 'subscribe'". Each mirrors a form that takes a `DispatchQueue`, with the queue generic (a
// class), so that a `DispatchQueue`, `.main` and `.sendingThread` resolve as before; the
// compile-fail examples of Guides/Migrating.md check the messages, and the guide check the
// calls that must still resolve.

extension MulticastSource where Value: Sendable {
  /// Refused: `on:` takes a `DispatchQueue`, not another queue type.
  @available(
    *, unavailable,
    message: """
      'on:' takes a DispatchQueue (or .sendingThread on a sendable source), not an \
      OperationQueue, a RunLoop or an actor: pass a DispatchQueue, or subscribe without 'on:' \
      in main-actor code to run on the main actor
      """
  )
  @discardableResult
  public func subscribe<Queue: AnyObject>(
    on queue: Queue, replayingLast: Bool = Self.replaysLastByDefault, limit: Int? = nil,
    _ next: @escaping @Sendable (Value) -> Void
  ) -> Subscription { fatalError("unavailable") }

  /// Refused: `on:` takes a `DispatchQueue`, not another queue type.
  @available(
    *, unavailable,
    message: """
      'on:' takes a DispatchQueue (or .sendingThread on a sendable source), not an \
      OperationQueue, a RunLoop or an actor: pass a DispatchQueue, or subscribe without 'on:' \
      in main-actor code to run on the main actor
      """
  )
  @discardableResult
  public func subscribe<Owner: AnyObject & Sendable, Queue: AnyObject>(
    _ owner: Owner, on queue: Queue, replayingLast: Bool = Self.replaysLastByDefault,
    limit: Int? = nil, _ next: @escaping @Sendable (Owner, Value) -> Void
  ) -> Subscription { fatalError("unavailable") }
}

extension ValueObservable where T: Sendable {
  /// Refused: `receive(on:)` takes a `DispatchQueue` or `MainActor.shared`, not another queue
  /// type.
  @available(
    *, unavailable,
    message: """
      receive(on:) takes a DispatchQueue or MainActor.shared, not an OperationQueue or a \
      RunLoop: for OperationQueue.main or RunLoop.main, write receive(on: MainActor.shared)
      """
  )
  public func receive<Queue: AnyObject>(on queue: Queue) -> ValuesOnQueue<T> {
    fatalError("unavailable")
  }
}
