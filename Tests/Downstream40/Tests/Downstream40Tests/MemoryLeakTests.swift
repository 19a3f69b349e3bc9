// swift-format-ignore-file
// Kept as the 4.0 code was written, not in this repository's style.
// Adapted from material-motion's IndefiniteObservable 4.0: Copyright 2016-present The Material
// Motion Authors, licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
import Foundation
import IndefiniteObservable
import XCTest

// The 4.0 memory tests (tests/unit/MemoryLeakTests.swift); autoreleasepool is a plain scope here,
// and `weak var` that is never reassigned is `weak let` (a Swift 6.2 warning otherwise).

class MemoryLeakTests: XCTestCase {
  func testObservableIsDeallocated() {
    var observable: ValueObservable<CGFloat>? = ValueObservable<CGFloat> { observer in
      observer.next(5)
      return noopDisconnect
    }
    weak let weakObservable = observable

    // Remove our only strong reference.
    observable = nil

    XCTAssertNil(weakObservable)
  }

  func testDownstreamObservableKeepsUpstreamAlive() {
    var observable: ValueObservable<CGFloat>? = ValueObservable<CGFloat> { observer in
      observer.next(5)
      return noopDisconnect
    }
    weak let weakObservable = observable

    let downstream = observable!.map { $0 }

    observable = nil

    let _ = downstream // Silence warnings.

    // The downstream ref should keep our observable in scope.
    XCTAssertNotNil(weakObservable)
  }

  func testSubscribedObservableWithOperatorIsDeallocated() {
    var observable: ValueObservable<CGFloat>? = ValueObservable<CGFloat> { observer in
      observer.next(5)
      return noopDisconnect
    }
    weak let weakObservable = observable

    let _ = observable!.map { value in
      return value * value
    }.subscribe {
      let _ = $0
    }
    // Remove our only strong reference.
    observable = nil

    XCTAssertNil(weakObservable)
  }

  func testSubscriptionDoesNotKeepObserverInMemory() {
    weak var weakObserver: ValueObserver<Int>?

    var didDisconnect = false
    var didSetObserver = false

    do {
      let value = 10
      let observable = ValueObservable<Int> { observer in
        weakObserver = observer
        didSetObserver = true
        observer.next(value)
        return {
          didDisconnect = true
        }
      }

      let _ = observable.subscribe { _ in }
    }

    XCTAssertNil(weakObserver)
    XCTAssertTrue(didSetObserver)
    XCTAssertFalse(didDisconnect)
  }
}
