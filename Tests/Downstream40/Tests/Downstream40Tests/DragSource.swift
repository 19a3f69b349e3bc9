// swift-format-ignore-file
// Kept as the 4.0 code was written, not in this repository's style.
// Adapted from material-motion's IndefiniteObservable 4.0: Copyright 2016-present The Material
// Motion Authors, licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
import IndefiniteObservable

// "How to create a synchronous stream using objects" from the 4.0 README, with a plain
// delegate-style gesture in place of UIKit's UIPanGestureRecognizer.

public enum GestureState {
  case began
  case changed
  case ended
}

public final class PanGesture {
  public init() {}

  public var state: GestureState = .began
  public var location: (x: Double, y: Double) = (0, 0)

  public func addTarget(_ target: AnyObject, action: @escaping (PanGesture) -> Void) {
    targets.append((ObjectIdentifier(target), action))
  }

  public func removeTarget(_ target: AnyObject) {
    targets.removeAll { $0.0 == ObjectIdentifier(target) }
  }

  public func move(to location: (x: Double, y: Double), state: GestureState) {
    self.location = location
    self.state = state
    for target in targets {
      target.1(self)
    }
  }

  public var targetCount: Int { return targets.count }

  private var targets: [(ObjectIdentifier, (PanGesture) -> Void)] = []
}

public class DragConnection {
  public typealias Value = (state: GestureState, location: (x: Double, y: Double))

  public init(subscribedTo gesture: PanGesture, observer: ValueObserver<Value>) {
    self.gesture = gesture
    self.observer = observer

    gesture.addTarget(self) { [unowned self] in self.didPan($0) }

    // Populate the observer with the current gesture state.
    observer.next(currentValue(for: gesture))
  }

  func didPan(_ gesture: PanGesture) {
    observer.next(currentValue(for: gesture))
  }

  func currentValue(for gesture: PanGesture) -> Value {
    return (gesture.state, gesture.location)
  }

  public func disconnect() {
    gesture?.removeTarget(self)
    gesture = nil
  }

  var gesture: (PanGesture)?
  let observer: ValueObserver<Value>
}
