import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct SampleTests {
  @Test func passesTheLatestValueAtEachTriggerOnlyIfANewOneArrived() {
    let positions = CallbackSource<Int>()
    let frames = CallbackSource<Void>()
    var seen: [Int] = []
    let subscription = positions.stream.sample(frames.stream).subscribe { seen.append($0) }
    frames.emit(())
    positions.emit(1)
    positions.emit(2)
    #expect(seen == [])
    frames.emit(())
    frames.emit(())
    positions.emit(3)
    frames.emit(())
    positions.emit(4)
    #expect(seen == [2, 3])
    subscription.unsubscribe()
  }

  /// This stream connects first: its value sent while connecting is there for a value that the
  /// trigger sends while connecting. Connected the other way round, nothing would pass.
  @Test func thisStreamConnectsFirst() {
    let values = SynchronousSource([1, 2])
    let trigger = SynchronousSource([(), ()])
    var seen: [Int] = []
    let subscription = values.stream.sample(trigger.stream).subscribe { seen.append($0) }
    #expect(seen == [2])
    subscription.unsubscribe()
    #expect(values.disconnects == 1 && trigger.disconnects == 1)
  }

  @Test func unsubscribeDisconnectsBothStreamsInTheOrderTheyConnected() {
    var order: [String] = []
    func stream<V>(_ name: String, _: V.Type) -> ValueObservable<V> {
      ValueObservable { _ in
        order.append("connect \(name)")
        return { order.append("disconnect \(name)") }
      }
    }
    let subscription = stream("self", Int.self).sample(stream("trigger", Void.self))
      .subscribe { _ in }
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      order == ["connect self", "connect trigger", "disconnect self", "disconnect trigger"])
  }

  @Test func unsubscribingFromInsideADeliveryEndsBothStreams() {
    let positions = CallbackSource<Int>()
    let frames = CallbackSource<Void>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = positions.stream.sample(frames.stream).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    positions.emit(1)
    frames.emit(())
    positions.emit(2)
    frames.emit(())
    #expect(seen == [1])
    #expect(positions.observerCount == 0 && frames.observerCount == 0)
    #expect(positions.disconnects == 1 && frames.disconnects == 1)
  }

  @Test func eachSubscriptionHoldsItsOwnLatestValue() {
    let positions = CallbackSource<Int>()
    let frames = CallbackSource<Void>()
    let sampled = positions.stream.sample(frames.stream)
    var first: [Int] = []
    var second: [Int] = []
    let early = sampled.subscribe { first.append($0) }
    positions.emit(1)
    let late = sampled.subscribe { second.append($0) }
    frames.emit(())
    positions.emit(2)
    frames.emit(())
    #expect(first == [1, 2])
    #expect(second == [2])
    early.unsubscribe()
    late.unsubscribe()
    #expect(positions.connects == 2 && positions.disconnects == 2)
    #expect(frames.connects == 2 && frames.disconnects == 2)
  }

  @Test func theHeldValueIsReleasedWhenPassedOnOrWhenTheSubscriptionEnds() {
    let values = CallbackSource<Witness>()
    let frames = CallbackSource<Void>()
    let subscription = values.stream.sample(frames.stream).subscribe { _ in }
    weak var passed: Witness?
    weak var held: Witness?
    do {
      let witness = Witness()
      passed = witness
      values.emit(witness)
    }
    #expect(passed != nil)
    frames.emit(())
    #expect(passed == nil)
    do {
      let witness = Witness()
      held = witness
      values.emit(witness)
    }
    #expect(held != nil)
    subscription.unsubscribe()
    #expect(held == nil)
  }
}
