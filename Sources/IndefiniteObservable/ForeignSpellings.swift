// RxSwift's and Combine's spellings of operators that exist here under another name, refused
// with a message that names ours. Without them, the compiler says only "value of type
// 'ValueObservable<Int>' has no member 'distinctUntilChanged'". Each is unavailable, so it is
// never called: its body is never run. Guides/Migrating.md's compile-fail example "'x' has been
// renamed to 'y'" checks every message, and its tables list the same names.
//
// A spelling whose counterpart lives in another module (`receive(on:)` and `share()` in
// `Multicast`) is refused here too, on `ValueObservable`, so that the message comes whichever
// modules the file imports. The time operators' spellings (`debounce`, `throttle`, `delay` with a
// scheduler) are refused in `Producers`, beside the operators.

extension ValueObservable where T: Equatable {
  /// RxSwift's name for ``removeDuplicates()``: refused, with the name to use.
  @available(*, unavailable, renamed: "removeDuplicates()")
  public func distinctUntilChanged() -> ValueObservable<T> { fatalError("unavailable") }
}

extension ValueObservable {
  /// RxSwift's name for ``removeDuplicates(by:)``: refused, with the name to use. RxSwift's
  /// comparer and the predicate of `removeDuplicates(by:)` both return true for duplicates.
  @available(*, unavailable, renamed: "removeDuplicates(by:)")
  public func distinctUntilChanged(_ comparer: @escaping (T, T) -> Bool) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's name for ``prepend(_:)-(T...)``: refused, with the name to use.
  @available(*, unavailable, renamed: "prepend(_:)")
  public func startWith(_ values: T...) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's name for ``prefix(_:)``: refused, with the name to use. As RxSwift's `take(_:)`
  /// completes after the last value, `prefix(_:)` disconnects its upstream.
  @available(*, unavailable, renamed: "prefix(_:)")
  public func take(_ count: Int) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's name for ``dropFirst(_:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "dropFirst(_:)")
  public func skip(_ count: Int) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's name for ``prefix(while:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "prefix(while:)")
  public func take(while predicate: @escaping (T) -> Bool) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's name for ``drop(while:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "drop(while:)")
  public func skip(while predicate: @escaping (T) -> Bool) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's name for ``prefix(untilOutputFrom:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "prefix(untilOutputFrom:)")
  public func take<U>(until other: ValueObservable<U>) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's name for ``drop(untilOutputFrom:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "drop(untilOutputFrom:)")
  public func skip<U>(until other: ValueObservable<U>) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's name for ``output(at:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "output(at:)")
  public func element(at index: Int) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `do(onNext:onSubscribe:onDispose:)`: refused, with the name to use,
  /// ``handleEvents(receiveSubscription:receiveOutput:receiveCancel:)``.
  @available(
    *, unavailable,
    message: """
      use handleEvents(receiveSubscription:receiveOutput:receiveCancel:): onSubscribe is \
      receiveSubscription, onNext receiveOutput, onDispose receiveCancel
      """
  )
  public func `do`(
    onNext: ((T) -> Void)? = nil, onSubscribe: (() -> Void)? = nil,
    onDispose: (() -> Void)? = nil
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's name for `print(_:to:)`: refused, with the name to use.
  @available(*, unavailable, renamed: "print(_:)")
  public func debug(_ identifier: String) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's name for ``switchToLatest()``: refused, with the name to use.
  @available(*, unavailable, renamed: "switchToLatest()")
  public func switchLatest<U>() -> ValueObservable<U> where T: ValueObservable<U> {
    fatalError("unavailable")
  }

  /// RxSwift's `observe(on:)`: refused, with the name to use, `receive(on:)` (module
  /// `Multicast`), which takes a `DispatchQueue` or `MainActor.shared`.
  @available(
    *, unavailable,
    message: """
      use receive(on:) (import Multicast), with a DispatchQueue or MainActor.shared; for the \
      main scheduler, subscribe in main-actor code, or write receive(on: MainActor.shared)
      """
  )
  public func observe<Scheduler>(on scheduler: Scheduler) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's `subscribe(onNext:)`: refused, with the name to use, ``subscribe(_:)``. A stream
  /// has no error and no completion to handle.
  @available(
    *, unavailable,
    message: "use subscribe { value in }: a stream has no error and no completion to handle"
  )
  public func subscribe(onNext: @escaping (T) -> Void) -> Subscription {
    fatalError("unavailable")
  }

  /// Combine's `sink(receiveValue:)`: refused, with the name to use, ``subscribe(_:)``.
  @available(*, unavailable, renamed: "subscribe(_:)")
  public func sink(receiveValue: @escaping (T) -> Void) -> Subscription {
    fatalError("unavailable")
  }

  /// Combine's `sink(receiveCompletion:receiveValue:)`: refused, with the name to use,
  /// ``subscribe(_:)``. A stream never completes.
  @available(
    *, unavailable,
    message: "use subscribe { value in }: a stream never completes, so there is no completion"
  )
  public func sink(
    receiveCompletion: @escaping (Any) -> Void, receiveValue: @escaping (T) -> Void
  ) -> Subscription { fatalError("unavailable") }

  /// Combine's `eraseToAnyPublisher()`: refused. A `ValueObservable` is the erased type
  /// already; a source that others may subscribe to but not send into is `readOnly`.
  @available(
    *, unavailable,
    message: """
      a ValueObservable needs no erasing: use the stream itself; to hand out a source that \
      others may subscribe to but not send into, use its 'readOnly' view (import Multicast)
      """
  )
  public func eraseToAnyPublisher() -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `asObservable()`: refused. A `ValueObservable` is the observable already; a
  /// source that others may subscribe to but not send into is `readOnly`.
  @available(
    *, unavailable,
    message: """
      a ValueObservable is the observable already: use the stream itself; to hand out a source \
      that others may subscribe to but not send into, use its 'readOnly' view (import Multicast)
      """
  )
  public func asObservable() -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `share(replay:)`: refused, with the spelling that replays (module `Multicast`):
  /// dropping the argument would silently lose the replay.
  @available(*, unavailable, renamed: "share(replayingLast:)", message: "import Multicast")
  public func share(replay: Int) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `bind(to:)`: refused, with what to write instead.
  @available(
    *, unavailable,
    message: """
      use subscribe { target.value = $0 } or subscribe { target.send($0) }; to end with an \
      object, subscribe(object) { object, value in } on a source (import Multicast)
      """
  )
  public func bind<Target>(to target: Target) -> Subscription { fatalError("unavailable") }

  /// RxSwift's `multicast(_:)`: refused, with the spelling to use (module `Multicast`).
  @available(
    *, unavailable,
    message: """
      use makeConnectable(through: emitter) (import Multicast), with an Emitter as the subject
      """
  )
  public func multicast<Subject>(_ subject: Subject) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// Combine's `multicast(subject:)`: refused, with the name to use (module `Multicast`).
  @available(*, unavailable, renamed: "makeConnectable(through:)", message: "import Multicast")
  public func multicast<Subject>(subject: Subject) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's `publish()`: refused, with the name to use (module `Multicast`).
  @available(*, unavailable, renamed: "makeConnectable()", message: "import Multicast")
  public func publish() -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `replay(_:)`: refused, with the spelling to use (module `Multicast`).
  @available(
    *, unavailable,
    message: "use makeConnectable(through: Emitter(keepingLast: n)) (import Multicast)"
  )
  public func replay(_ bufferSize: Int) -> ValueObservable<T> { fatalError("unavailable") }
}

extension ValueObservable {
  /// RxSwift's name for ``replaceError(with:)``: refused, with the name to use.
  @available(*, unavailable, renamed: "replaceError(with:)")
  public func catchAndReturn<Success, Failure: Error>(
    _ element: Success
  ) -> ValueObservable<Success> where T == Result<Success, Failure> { fatalError("unavailable") }
}

extension Subscription {
  /// RxSwift's `disposed(by:)`: refused, with the name to use, `store(in:)` of a
  /// `SubscriptionBag` (module `Multicast`).
  @available(
    *, unavailable,
    message: """
      use store(in: bag) with a SubscriptionBag (import Multicast; 'let bag = \
      SubscriptionBag()'), which unsubscribes when it is deallocated, as a DisposeBag disposes
      """
  )
  public func disposed<Bag>(by bag: Bag) { fatalError("unavailable") }

  /// RxSwift's name for ``unsubscribe()``: refused, with the name to use.
  @available(*, unavailable, renamed: "unsubscribe()")
  public func dispose() { fatalError("unavailable") }

  /// Combine's name for ``unsubscribe()``: refused, with the name to use.
  @available(*, unavailable, renamed: "unsubscribe()")
  public func cancel() { fatalError("unavailable") }
}

extension SendableSubscription {
  /// RxSwift's `disposed(by:)`: refused, with the name to use, `store(in:)` of a
  /// `SubscriptionBag` (module `Multicast`).
  @available(
    *, unavailable,
    message: """
      use store(in: bag) with a SubscriptionBag (import Multicast; 'let bag = \
      SubscriptionBag()'), which unsubscribes when it is deallocated, as a DisposeBag disposes
      """
  )
  public func disposed<Bag>(by bag: Bag) { fatalError("unavailable") }

  /// RxSwift's name for ``unsubscribe()``: refused, with the name to use.
  @available(*, unavailable, renamed: "unsubscribe()")
  public func dispose() { fatalError("unavailable") }

  /// Combine's name for ``unsubscribe()``: refused, with the name to use.
  @available(*, unavailable, renamed: "unsubscribe()")
  public func cancel() { fatalError("unavailable") }
}

extension ValueObservable {
  /// RxSwift's `Observable.create(_:)`: refused, with the spelling to use.
  @available(
    *, unavailable,
    message: """
      use ValueObservable { observer in ...; return { /* disconnect */ } }: the connect closure \
      returns the disconnect
      """
  )
  public static func create<Observer, Disposable>(
    _ subscribe: @escaping (Observer) -> Disposable
  ) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `Observable.merge(_:)`: refused, with the spellings to use.
  @available(*, unavailable, message: "use first.merge(with: second), or [a, b, c].merge()")
  public static func merge(_ sources: ValueObservable<T>...) -> ValueObservable<T> {
    fatalError("unavailable")
  }

  /// RxSwift's `Observable.of(_:)` and `from(_:)`: refused; a stream of a sequence is a connect
  /// closure.
  @available(
    *, unavailable,
    message: """
      use ValueObservable { observer in values.forEach(observer.next); return noopDisconnect } \
      (it never completes), or Just(value) for one value
      """
  )
  public static func of(_ values: T...) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `Observable.just(_:)`: refused, with the name to use.
  @available(*, unavailable, message: "use Just(value), a stream that delivers one value")
  public static func just(_ value: T) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `Observable.error(_:)`: refused; a stream has no error channel.
  @available(
    *, unavailable,
    message: """
      a stream has no error channel: make it a stream of Result and use replaceError(with:), \
      catch or retry (Migrating.md, "Failure as a value")
      """
  )
  public static func error(_ error: any Error) -> ValueObservable<T> { fatalError("unavailable") }

  /// RxSwift's `Observable.timer(_:scheduler:)`: refused, with the spelling to use.
  @available(
    *, unavailable,
    message: """
      use Timers.after(dueTime) or Timers.every(period) (import Producers), and .stream() on it \
      for the operators
      """
  )
  public static func timer<Scheduler>(
    _ dueTime: Duration, period: Duration? = nil, scheduler: Scheduler
  ) -> ValueObservable<Int> { fatalError("unavailable") }

  /// RxSwift's static `Observable.combineLatest(_:_:resultSelector:)`: refused, with the
  /// spelling to use.
  @available(
    *, unavailable,
    message: "use first.combineLatest(second), then map { first, second in ... } for a selector"
  )
  public static func combineLatest<A, B>(
    _ first: ValueObservable<A>, _ second: ValueObservable<B>,
    resultSelector: @escaping (A, B) -> T
  ) -> ValueObservable<T> { fatalError("unavailable") }
}
