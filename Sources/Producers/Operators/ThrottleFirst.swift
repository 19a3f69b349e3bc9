import IndefiniteObservable

extension ValueObservable {
  /// Passes on the first value of each window of `interval`, at once, and drops every value
  /// that arrives inside the window: RxSwift's `throttle(_:latest: false, scheduler:)`, RxJava's
  /// `throttleFirst`.
  ///
  /// ```swift
  /// let taps = button.taps.throttleFirst(for: .milliseconds(500))  // no double submit
  /// ```
  ///
  /// A value passes when no value has passed in the last `interval`; it opens a window of
  /// `interval`, and the values that arrive before the window ends are dropped, never delivered
  /// later. The first value at or after the window's end passes at once and opens the next.
  ///
  /// It differs from ``throttle(for:clock:latest:isolation:)`` with `latest: false`, Combine's,
  /// which keeps the first value that arrives inside a window and delivers it at the window's
  /// end: here that value is dropped. With `latest: true`, `throttle` is RxSwift's
  /// `throttle(_:latest: true, scheduler:)` (its default), so the two libraries' users each
  /// have their own; RxSwift's spelling is refused with a message naming both.
  ///
  /// - Threading: it holds no value and arms no timer, so it needs no actor: like the core
  ///   operators, it runs synchronously on the thread of the upstream's send, and delivers
  ///   there, before that send returns. It reads `clock.now` once per value.
  /// - Unsubscribe: disconnects the upstream; nothing is held, so nothing is dropped.
  /// - Cost: no allocation per value, and no task or timer; the subscription allocates what
  ///   its upstream's does, and one closure context.
  /// - Testing: with a `ManualClock`, a value passes once the clock has been advanced to the
  ///   window's end; no advance delivers anything.
  ///
  /// - Parameters:
  ///   - interval: The window that a value passed on opens. Any duration: zero or less passes
  ///     every value; one longer than `Timers.maximumInterval` (about 63 years) is that long.
  ///   - clock: The clock that measures `interval`; a test passes one it controls.
  @inlinable
  public func throttleFirst<C: Clock>(
    for interval: Duration, clock: C = ContinuousClock()
  ) -> ValueObservable<T> where C.Duration == Duration {
    let interval = clampedInterval(interval)
    return ValueObservable { observer in
      // The end of the window that the last value passed on opened; nil before the first.
      var windowEnd: C.Instant?
      let upstream = self.subscribe { value in
        let now = clock.now
        if let windowEnd, now < windowEnd { return }
        windowEnd = now.advanced(by: interval)
        observer.next(value)
      }
      return upstream.unsubscribe
    }
  }
}
