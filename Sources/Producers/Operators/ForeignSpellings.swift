import IndefiniteObservable

// Combine's and RxSwift's spellings of the time operators, which take a scheduler, refused with
// a message that names ours: here a clock measures the time, and the values are delivered on
// the actor of the code that applies the operator. Without them, the compiler says only "extra
// argument 'scheduler' in call". Each is unavailable, so it is never called; the scheduler
// parameter is generic, so that any scheduler that type-checks (`DispatchQueue.main`,
// `RunLoop.main`) reaches the message. Guides/Migrating.md's compile-fail example "'x' has been
// renamed to 'y'" checks every message. The core operators' foreign spellings are in
// `IndefiniteObservable`'s ForeignSpellings.swift.

extension ValueObservable {
  /// Combine's `debounce(for:scheduler:options:)`: refused, with the spelling to use,
  /// ``debounce(for:clock:isolation:)``.
  @available(
    *, unavailable,
    message: """
      no scheduler: use debounce(for:), which delivers on the actor of the code that applies \
      it; a test passes clock: ManualClock()
      """
  )
  public func debounce<Scheduler>(
    for dueTime: Duration, scheduler: Scheduler, options: Any? = nil
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `debounce(_:scheduler:)`: refused, with the spelling to use,
  /// ``debounce(for:clock:isolation:)``.
  @available(
    *, unavailable,
    message: """
      no scheduler: use debounce(for:), which delivers on the actor of the code that applies \
      it; a test passes clock: ManualClock()
      """
  )
  public func debounce<Scheduler>(
    _ dueTime: Duration, scheduler: Scheduler
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// Combine's `throttle(for:scheduler:latest:)`: refused, with the spelling to use,
  /// ``throttle(for:clock:latest:isolation:)``, which has Combine's semantics.
  @available(
    *, unavailable,
    message: """
      no scheduler: use throttle(for:latest:), which has Combine's semantics and delivers on \
      the actor of the code that applies it; a test passes clock: ManualClock()
      """
  )
  public func throttle<Scheduler>(
    for interval: Duration, scheduler: Scheduler, latest: Bool
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `throttle(_:latest:scheduler:)`: refused, with the two spellings that have its
  /// semantics: ``throttleFirst(for:clock:)`` for `latest: false`, and
  /// ``throttle(for:clock:latest:isolation:)`` with `latest: true` (RxSwift's default).
  @available(
    *, unavailable,
    message: """
      RxSwift's latest: false (drop the values inside a window) is throttleFirst(for:); its \
      latest: true, the default (the last value of a window at its end) is \
      throttle(for:latest: true). throttle(for:latest: false) is Combine's: it delivers a \
      window's first value at the window's end
      """
  )
  public func throttle<Scheduler>(
    _ dueTime: Duration, latest: Bool = true, scheduler: Scheduler
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// Combine's `delay(for:tolerance:scheduler:options:)`: refused, with the spelling to use,
  /// ``delay(for:clock:isolation:)``.
  @available(
    *, unavailable,
    message: """
      no scheduler: use delay(for:), which delivers on the actor of the code that applies it; \
      a test passes clock: ManualClock()
      """
  )
  public func delay<Scheduler>(
    for interval: Duration, tolerance: Duration? = nil, scheduler: Scheduler, options: Any? = nil
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `delay(_:scheduler:)`: refused, with the spelling to use,
  /// ``delay(for:clock:isolation:)``.
  @available(
    *, unavailable,
    message: """
      no scheduler: use delay(for:), which delivers on the actor of the code that applies it; \
      a test passes clock: ManualClock()
      """
  )
  public func delay<Scheduler>(
    _ dueTime: Duration, scheduler: Scheduler
  ) -> ValueObservable<T> { fatalError("unavailable") }
}
