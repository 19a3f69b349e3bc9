import Dispatch
import IndefiniteObservable

extension ValueObservable where T: Sendable {
  /// Delivers this stream's values on `queue`, as Combine's `receive(on:)` with a
  /// `DispatchQueue`: subscribe a `@Sendable` closure to the result, and it runs on `queue`.
  ///
  /// ```swift
  /// let resizing = photos.receive(on: workQueue).subscribe { photo in
  ///   thumbnails.store(photo.resized(to: 64))  // on workQueue
  /// }
  /// ```
  ///
  /// The result is not a `ValueObservable`, on purpose: a stream's subscribers run where they
  /// were written (see the Concurrency guide), and only a `@Sendable` closure may be written for
  /// a queue. Apply operators before `receive(on:)`; operators after it belong in the closure.
  ///
  /// - Threading: subscribe where this stream lives, as to the stream itself. Each value is
  ///   handed to `queue` with `async` when the stream sends it, through the subscriber's gate
  ///   (as a multicast source's `subscribe(on: queue)` does), and the send returns at once; on
  ///   a serial queue the values arrive in the order sent. A value sent on `queue` itself also
  ///   waits for its turn, as in Combine.
  /// - Unsubscribe: ends the upstream subscription and drops the values still waiting for the
  ///   queue; once `unsubscribe()` returns, no call of the closure begins (one already running on
  ///   `queue` may finish). The closure is released then.
  /// - Cost: one Dispatch work item per value, which Dispatch allocates.
  ///
  /// - Parameter queue: Where subscribers run.
  /// - Returns: The values, for `@Sendable` subscribers that run on `queue`.
  public func receive(on queue: DispatchQueue) -> ValuesOnQueue<T> {
    ValuesOnQueue(upstream: self, queue: queue)
  }

  /// Delivers this stream's values on the main actor, as Combine's `receive(on:)` with
  /// `DispatchQueue.main` or `RunLoop.main`: subscribe a `@MainActor` closure to the result.
  ///
  /// ```swift
  /// progress.receive(on: MainActor.shared).subscribe { fraction in
  ///   bar.fraction = fraction  // on the main actor, whatever thread sent it
  /// }
  /// ```
  ///
  /// The closure's `@MainActor` type is what makes this sound from any isolation: the compiler
  /// checks what it touches.
  ///
  /// - Threading: subscribe where this stream lives, as to the stream itself. Every value hops to
  ///   the main actor, even one sent there, as in Combine; values arrive in the order sent, and a
  ///   hop takes every value that waits.
  /// - Unsubscribe: ends the upstream subscription and drops the values still waiting for their
  ///   hop; once `unsubscribe()` returns, no call of the closure begins.
  ///
  /// - Parameter mainActor: `MainActor.shared`.
  /// - Returns: The values, for subscribers that run on the main actor.
  public func receive(on mainActor: MainActor) -> ValuesOnMainActor<T> {
    ValuesOnMainActor(upstream: self)
  }
}

extension ValueObservable where T: Sendable {
  /// Subscribes to this stream with `gate`, which is sent each value; unsubscribing closes the
  /// gate, so that nothing waiting in it is delivered, then ends the upstream subscription.
  func subscribe(through gate: ObserverGate<T>) -> Subscription {
    // Set once `subscribe` returns. A gate closed from its own side (an owner found gone where
    // the values run) ends the upstream at the next value, here, where the upstream delivers.
    var upstream: Subscription?
    upstream = subscribe { value in
      guard !gate.isClosed else {
        upstream?.unsubscribe()
        upstream = nil
        return
      }
      gate.send(value)
    }
    return Subscription {
      gate.close()
      upstream?.unsubscribe()
      upstream = nil
    }
  }
}
