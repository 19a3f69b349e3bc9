// swift-format-ignore-file
// Kept as the 4.0 code was written, not in this repository's style.
// Adapted from material-motion's IndefiniteObservable 4.0: Copyright 2016-present The Material
// Motion Authors, licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
import IndefiniteObservable

// The multi-channel observer of the 4.0 OperatorExample.

public enum MotionState {
  case atRest
  case active
}

public final class MotionObserver<T>: Observer {
  public typealias Value = T

  public init(next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void) {
    self.next = next
    self.state = state
  }

  public let next: (T) -> Void
  public let state: (MotionState) -> Void
}

public class MotionObservable<T>: IndefiniteObservable<MotionObserver<T>> {
  public final func subscribe(next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void) -> Subscription {
    return super.subscribe(observer: MotionObserver(next: next, state: state))
  }
}

extension MotionObservable {

  // Map from one value type to another.
  public func map<U>(_ transform: @escaping (T) -> U) -> MotionObservable<U> {
    return MotionObservable<U> { observer in
      return self.subscribe(next: {
        observer.next(transform($0))
      }, state: { state in
        observer.state(state)
      }).unsubscribe
    }
  }
}
