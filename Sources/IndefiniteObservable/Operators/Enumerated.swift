extension ValueObservable {
  /// Passes on each value with its position in the subscription, counting from 0; RxSwift's
  /// `enumerated()`, the stream form of the standard library's `enumerated()` (Combine has no
  /// such operator).
  ///
  /// ```swift
  /// let letters = ValueObservable<String> { observer in
  ///   for letter in ["a", "b"] { observer.next(letter) }
  ///   return noopDisconnect
  /// }.enumerated()
  /// // delivers (offset: 0, element: "a"), then (offset: 1, element: "b")
  /// ```
  ///
  /// Each subscription counts its own values, from subscribe on; values that the stream sends
  /// synchronously while connecting (a replayed current value, for example) count like any
  /// other. The count is an `Int`: at a billion values a second it would last 292 years.
  ///
  /// - Threading: like every operator (see ``ValueObservable``); the count is the subscription's
  ///   own and is not synchronized.
  @inlinable
  public func enumerated() -> ValueObservable<(offset: Int, element: T)> {
    ValueObservable<(offset: Int, element: T)>.connectingNext { next in
      var offset = 0
      return self.connectNext { value in
        let current = offset
        offset += 1
        next((offset: current, element: value))
      }
    }
  }
}
