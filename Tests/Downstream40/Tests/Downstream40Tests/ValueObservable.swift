// swift-format-ignore-file
// Kept as the 4.0 code was written, not in this repository's style.
// Adapted from material-motion's IndefiniteObservable 4.0: Copyright 2016-present The Material
// Motion Authors, licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
import IndefiniteObservable

// "How to make an observable", from the 4.0 README, with the operators of its OperatorExample.

public final class ValueObserver<T>: Observer {
  public typealias Value = T

  public init(_ next: @escaping (T) -> Void) {
    self.next = next
  }

  public let next: (T) -> Void
}

public class ValueObservable<T>: IndefiniteObservable<ValueObserver<T>> {
  public final func subscribe(_ next: @escaping (T) -> Void) -> Subscription {
    return super.subscribe(observer: ValueObserver(next))
  }
}

extension ValueObservable {

  // Map from one value type to another.
  public func map<U>(_ transform: @escaping (T) -> U) -> ValueObservable<U> {
    return ValueObservable<U> { observer in
      return self.subscribe {
        observer.next(transform($0))
      }.unsubscribe
    }
  }

  // Only emit values downstream for which passesTest returns true
  public func filter(_ passesTest: @escaping (T) -> Bool) -> ValueObservable<T> {
    return ValueObservable<T> { observer in
      return self.subscribe {
        if passesTest($0) {
          observer.next($0)
        }
      }.unsubscribe
    }
  }
}
