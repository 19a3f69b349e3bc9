// swift-format-ignore-file
// Kept as the 4.0 code was written, not in this repository's style.
// Adapted from material-motion's IndefiniteObservable 4.0: Copyright 2016-present The Material
// Motion Authors, licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
import Foundation
import IndefiniteObservable
import XCTest

// The 4.0 unit tests (tests/unit/ObservableTests.swift), with CoreGraphics replaced by
// Foundation's CGFloat and CGPoint so that they also run on Linux. In Swift 6 mode,
// XCTest's `waitForExpectations` is main-actor isolated, so the waits name their expectations.

class ObservableTests: XCTestCase {

  func testSubscription() {
    let value = 10

    let observable = ValueObservable<Int> { observer in
      observer.next(value)
      return noopDisconnect
    }

    let wasReceived = expectation(description: "Value was received")
    let _ = observable.subscribe {
      if $0 == value {
        wasReceived.fulfill()
      }
    }

    wait(for: [wasReceived], timeout: 0)
  }

  func testUnsubscribesOnUnsubscribe() {
    var didUnsubscribe = false

    let observable = ValueObservable<CGFloat> { observer in
      return {
        didUnsubscribe = true
      }
    }

    let subscription = observable.subscribe { _ in }
    subscription.unsubscribe()

    XCTAssertTrue(didUnsubscribe)
  }

  func testTwoParallelSubscriptions() {
    let value = 10

    let observable = ValueObservable<Int> { observer in
      observer.next(value)
      return noopDisconnect
    }

    let wasReceived = expectation(description: "Value was received")
    let subscription1 = observable.subscribe {
      if $0 == value {
        wasReceived.fulfill()
      }
    }

    let wasReceived2 = expectation(description: "Value was received")
    let subscription2 = observable.subscribe {
      if $0 == value {
        wasReceived2.fulfill()
      }
    }

    wait(for: [wasReceived, wasReceived2], timeout: 0)

    subscription1.unsubscribe()
    subscription2.unsubscribe()
  }

  func testMappingTypes() {
    let value = CGPoint(x: 0, y: 10)
    let observable = ValueObservable<CGPoint> { observer in
      observer.next(value)
      return noopDisconnect
    }

    let wasReceived = expectation(description: "Value was received")
    let _ = observable.map { $0.y }.subscribe {
      if $0 == value.y {
        wasReceived.fulfill()
      }
    }

    wait(for: [wasReceived], timeout: 0)
  }

  func testFilteringValues() {
    let value = CGPoint(x: 0, y: 10)
    let observable = ValueObservable<(Bool, CGPoint)> { observer in
      observer.next((false, value))
      observer.next((true, value))
      return noopDisconnect
    }

    var filteredValues: [CGPoint] = []
    let _ = observable.filter { (state, _) in state == true }.map { $0.1 }.subscribe {
      filteredValues.append($0)
    }

    XCTAssertEqual(filteredValues, [value])
  }

  class DeferredGenerator {
    func addObserver(_ observer: ValueObserver<Int>) {
      observers.append(observer)
    }

    func removeObserver(_ observer: ValueObserver<Int>) {
      if let index = observers.firstIndex(where: { $0 === observer }) {
        observers.remove(at: index)
      }
    }

    func emit(_ value: Int) {
      for observer in observers {
        observer.next(value)
      }
    }
    var observers: [ValueObserver<Int>] = []
  }

  func testGeneratedValuesAreNotReceivedAfterUnsubscriptionOrder2() {
    weak var weakObservable: ValueObservable<Int>?
    do {
      let generator = DeferredGenerator()

      let observable = ValueObservable<Int> { observer in
        generator.addObserver(observer)
        return {
          generator.removeObserver(observer)
        }
      }
      weakObservable = observable

      var valuesObserved: [Int] = []
      let subscription1 = observable.subscribe {
        valuesObserved.append($0)
      }

      let subscription2 = observable.map { $0 * 2 }.subscribe {
        valuesObserved.append($0)
      }

      generator.emit(5)
      generator.emit(10)
      subscription1.unsubscribe()
      generator.emit(2)

      XCTAssertEqual(valuesObserved, [5, 10, 10, 20, 4])

      subscription2.unsubscribe()
    }

    XCTAssertNil(weakObservable)
  }

  func testMotionObservableForwardsBothChannels() {
    let observable = MotionObservable<Int> { observer in
      observer.next(5)
      observer.state(.atRest)
      return noopDisconnect
    }
    var values: [Int] = []
    var states: [MotionState] = []
    let subscription = observable.map { $0 * 2 }.subscribe(next: { values.append($0) }, state: { states.append($0) })
    subscription.unsubscribe()
    XCTAssertEqual(values, [10])
    XCTAssertEqual(states, [.atRest])
  }

  func testDragStreamFromAProducerObject() {
    let pan = PanGesture()
    let dragStream = ValueObservable<DragConnection.Value> { observer in
      return DragConnection(subscribedTo: pan, observer: observer).disconnect
    }
    var states: [GestureState] = []
    let subscription = dragStream.subscribe {
      states.append($0.state)
    }
    pan.move(to: (1, 2), state: .changed)
    XCTAssertEqual(pan.targetCount, 1)
    subscription.unsubscribe()
    XCTAssertEqual(pan.targetCount, 0)
    pan.move(to: (3, 4), state: .ended)
    XCTAssertEqual(states, [.began, .changed])
  }
}
