extension ValueObservable {
  /// Writes every value to a property of `object`, and returns the subscription; Combine's
  /// `assign(to:on:)`, except that the object is held weakly.
  ///
  /// ```swift
  /// final class Label {
  ///   var text = ""
  /// }
  /// let names = Emitter<String>()
  /// let label = Label()
  /// let showing = names.map { "Hello, \($0)" }.assign(to: \.text, on: label)
  /// names.send("Ada")
  /// // label.text == "Hello, Ada"
  /// ```
  ///
  /// - Lifetime: the subscription holds `object` **weakly**. Combine's holds it strongly, for as
  ///   long as the subscription lasts, so the common `assign(to: \.x, on: self)` kept in one of
  ///   `self`'s properties is a reference cycle, and `self` never goes away. Here it does: once
  ///   `object` is deallocated, the next value is not written and ends the subscription (this
  ///   stream is disconnected before the value would have been written, as ``prefix(_:)`` ends
  ///   it), and the stream's closures are released. A stream that never delivers again stays
  ///   connected until it is unsubscribed. To keep an object alive for as long as the
  ///   subscription, keep a strong reference to it elsewhere, or subscribe with a closure that
  ///   captures it.
  /// - Unsubscribing: `unsubscribe()` stops the writes, as for any subscription; it does nothing
  ///   once the lost object has ended the subscription.
  /// - Threading: each write happens where the value is delivered, synchronously; the object's
  ///   property must be one that may be written there.
  @inlinable
  public func assign<Root: AnyObject>(
    to keyPath: ReferenceWritableKeyPath<Root, T>,
    on object: Root
  ) -> Subscription {
    let upstream = SerialDisconnect()
    let disconnect = connectNext { [weak object] value in
      guard let object else {
        upstream.end()
        return
      }
      object[keyPath: keyPath] = value
    }
    // If the object went away while connecting, the slot has ended and disconnects at once.
    upstream.replace(with: disconnect)
    return Subscription(upstream.end)
  }
}
