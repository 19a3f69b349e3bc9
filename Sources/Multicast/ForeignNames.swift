import IndefiniteObservable

// RxSwift's and Combine's names of this module's types, refused with a message naming ours, so
// that a port's first build says what to write instead of "cannot find in scope".

/// RxSwift's `BehaviorRelay`: refused, with the names to use.
@available(
  *, unavailable,
  message: """
    use CurrentValue(v) on one actor, SendableCurrentValue(v) from any thread; accept(x) is \
    value = x
    """
)
public typealias BehaviorRelay<T> = CurrentValue<T>

/// RxSwift's `BehaviorSubject`: refused, with the names to use.
@available(
  *, unavailable,
  message: "use CurrentValue(v) on one actor, SendableCurrentValue(v) from any thread"
)
public typealias BehaviorSubject<T> = CurrentValue<T>

/// Combine's `CurrentValueSubject`: refused, with the names to use.
@available(
  *, unavailable,
  message: "use CurrentValue(v) on one actor, SendableCurrentValue(v) from any thread"
)
public typealias CurrentValueSubject<T, Failure> = CurrentValue<T>

/// RxSwift's `PublishRelay`: refused, with the names to use.
@available(
  *, unavailable,
  message: """
    use Emitter<T>(keepingLast: 0) on one actor, SendableEmitter<T>(keepingLast: 0) \
    from any thread; accept(x) is send(x)
    """
)
public typealias PublishRelay<T> = Emitter<T>

/// RxSwift's `PublishSubject`: refused, with the names to use.
@available(
  *, unavailable,
  message: """
    use Emitter<T>(keepingLast: 0) on one actor, SendableEmitter<T>(keepingLast: 0) \
    from any thread
    """
)
public typealias PublishSubject<T> = Emitter<T>

/// RxSwift's `ReplaySubject`: refused, with the names to use.
@available(
  *, unavailable,
  message: """
    use Emitter<T>(keepingLast: n) on one actor, SendableEmitter<T>(keepingLast: n) from any \
    thread, and subscribe(replayingLast: true)
    """
)
public typealias ReplaySubject<T> = Emitter<T>

/// Combine's `PassthroughSubject`: refused, with the names to use.
@available(
  *, unavailable,
  message: """
    use Emitter<T>(keepingLast: 0) on one actor, SendableEmitter<T>(keepingLast: 0) \
    from any thread
    """
)
public typealias PassthroughSubject<T, Failure> = Emitter<T>

/// RxSwift's `DisposeBag`: refused, with the name to use.
@available(*, unavailable, renamed: "SubscriptionBag")
public typealias DisposeBag = SubscriptionBag

/// RxSwift's `Disposable`: refused, with the name to use.
@available(*, unavailable, renamed: "Subscription")
public typealias Disposable = Subscription

/// Combine's `AnyCancellable`: refused, with the names to use.
@available(
  *, unavailable,
  message: """
    use Subscription (SendableSubscription from a sendable source), kept in a SubscriptionBag; \
    dropping one does not unsubscribe
    """
)
public typealias AnyCancellable = Subscription

/// RxSwift's `MainScheduler`: refused, with what to write instead.
@available(
  *, unavailable,
  message: """
    no scheduler: a subscriber written in main-actor code runs on the main actor, at once when \
    the value is sent there; receive(on: MainActor.shared) always hops to it, as Combine's \
    receive(on:) does
    """
)
public enum MainScheduler {
  /// RxSwift's `MainScheduler.instance`, refused with its type.
  public static var instance: MainScheduler { fatalError("unavailable") }
}

extension MulticastSubject {
  /// RxSwift's relays' `accept(_:)`: refused, with the spellings to use.
  @available(*, unavailable, message: "use send(x) on an emitter, value = x on a current value")
  public func accept(_ value: Value) { fatalError("unavailable") }
}
