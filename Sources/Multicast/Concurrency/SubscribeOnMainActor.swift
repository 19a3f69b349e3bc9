import IndefiniteObservable

extension ValueObservable where T: Sendable {
  /// Subscribes a main-actor handler: every value is delivered on the main actor, in the order
  /// the stream sent it, whatever thread sent it.
  ///
  /// The handler's type, `@MainActor (T) -> Void`, says where it runs, so it may touch UI state
  /// and the compiler checks what it captures:
  ///
  /// ```swift
  /// @MainActor final class Label { var text = "" }
  /// let label = Label()
  /// let subscription = counts.subscribeOnMainActor { label.text = "\($0)" }
  /// ```
  ///
  /// - Timing: each value is delivered asynchronously, in a main-actor task that the first value
  ///   of a batch schedules; values sent meanwhile are delivered by the same task, in order. A
  ///   stream that sends values synchronously during subscription has them delivered after
  ///   `subscribeOnMainActor` returns. Delivery needs the main actor to run: an app's run loop,
  ///   `dispatchMain()`, or an `async` main that awaits.
  /// - Unsubscribe: from any thread. It unsubscribes from the stream and drops the queued values;
  ///   once it returns, no handler call begins (a call already running on the main actor
  ///   finishes).
  /// - Lifetime: the subscription keeps the handler until `unsubscribe()`, like any other.
  @discardableResult
  public func subscribeOnMainActor(_ next: @escaping @MainActor (T) -> Void) -> Subscription {
    receive(on: MainActor.shared).subscribe(next)
  }
}
