import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct DropUntilOutputTests {
  @Test func dropsValuesUntilTheOtherStreamDeliversThenPassesEveryValue() {
    let readings = CallbackSource<Int>()
    let calibrated = CallbackSource<Void>()
    var seen: [Int] = []
    let subscription = readings.stream.drop(untilOutputFrom: calibrated.stream).subscribe {
      seen.append($0)
    }
    readings.emit(1)
    readings.emit(2)
    calibrated.emit(())
    readings.emit(3)
    readings.emit(4)
    #expect(seen == [3, 4])
    subscription.unsubscribe()
  }

  @Test func theOtherStreamIsDisconnectedByItsFirstValue() {
    let readings = CallbackSource<Int>()
    let calibrated = CallbackSource<Void>()
    let subscription = readings.stream.drop(untilOutputFrom: calibrated.stream).subscribe { _ in }
    #expect(calibrated.observerCount == 1)
    calibrated.emit(())
    #expect(calibrated.observerCount == 0 && calibrated.disconnects == 1)
    #expect(readings.observerCount == 1 && readings.disconnects == 0)
    subscription.unsubscribe()
    #expect(calibrated.disconnects == 1)
    #expect(readings.observerCount == 0 && readings.disconnects == 1)
  }

  /// The other stream connects first: a value it sends while connecting lets every value of
  /// this stream through, those it sends while connecting included.
  @Test func theOtherStreamConnectsFirst() {
    let values = SynchronousSource([1, 2])
    let trigger = SynchronousSource([()])
    var seen: [Int] = []
    let subscription = values.stream.drop(untilOutputFrom: trigger.stream).subscribe {
      seen.append($0)
    }
    #expect(seen == [1, 2])
    #expect(trigger.disconnects == 1)
    subscription.unsubscribe()
    #expect(trigger.disconnects == 1 && values.disconnects == 1)
  }

  @Test func unsubscribingBeforeTheOtherDeliversDisconnectsBothInTheOrderTheyConnected() {
    var order: [String] = []
    func stream<V>(_ name: String, _: V.Type) -> ValueObservable<V> {
      ValueObservable { _ in
        order.append("connect \(name)")
        return { order.append("disconnect \(name)") }
      }
    }
    let subscription = stream("self", Int.self)
      .drop(untilOutputFrom: stream("other", Void.self)).subscribe { _ in }
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      order == ["connect other", "connect self", "disconnect other", "disconnect self"])
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let readings = CallbackSource<Int>()
    let calibrated = CallbackSource<Void>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = readings.stream.drop(untilOutputFrom: calibrated.stream).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    readings.emit(1)
    calibrated.emit(())
    readings.emit(2)
    readings.emit(3)
    #expect(seen == [2])
    #expect(readings.observerCount == 0 && calibrated.observerCount == 0)
    #expect(readings.disconnects == 1 && calibrated.disconnects == 1)
  }

  @Test func eachSubscriptionWaitsForItsOwnValueOfTheOtherStream() {
    let readings = CallbackSource<Int>()
    let calibrated = CallbackSource<Void>()
    let afterCalibration = readings.stream.drop(untilOutputFrom: calibrated.stream)
    var first: [Int] = []
    var second: [Int] = []
    let early = afterCalibration.subscribe { first.append($0) }
    calibrated.emit(())
    let late = afterCalibration.subscribe { second.append($0) }
    readings.emit(1)
    calibrated.emit(())
    readings.emit(2)
    #expect(first == [1, 2])
    #expect(second == [2])
    #expect(calibrated.connects == 2 && calibrated.disconnects == 2)
    early.unsubscribe()
    late.unsubscribe()
    #expect(readings.connects == 2 && readings.disconnects == 2)
  }

  /// The other stream's value, on a thread of its own, races `unsubscribe()` on this one: the
  /// other stream is disconnected exactly once, whichever wins.
  @Test func theOtherStreamsValueAndUnsubscribeOnTwoThreadsDisconnectItOnce() {
    for _ in 0..<200 {
      let values = ThreadSafeSource<Int>()
      let trigger = ThreadSafeSource<Int>()
      let subscription = values.stream.drop(untilOutputFrom: trigger.stream).subscribe { _ in }
      let triggered = startThread { trigger.emit(1) }
      subscription.unsubscribe()
      triggered.wait()
      #expect(values.disconnects == 1 && trigger.disconnects == 1)
      #expect(values.observerCount == 0 && trigger.observerCount == 0)
    }
  }
}
