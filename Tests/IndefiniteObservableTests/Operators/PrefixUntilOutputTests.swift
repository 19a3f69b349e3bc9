import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct PrefixUntilOutputTests {
  @Test func passesValuesUntilTheOtherStreamDeliversThenDisconnectsBoth() {
    let moves = CallbackSource<Int>()
    let release = CallbackSource<Void>()
    var seen: [Int] = []
    let subscription = moves.stream.prefix(untilOutputFrom: release.stream).subscribe {
      seen.append($0)
    }
    moves.emit(1)
    moves.emit(2)
    #expect(moves.disconnects == 0 && release.disconnects == 0)
    release.emit(())
    moves.emit(3)
    release.emit(())
    #expect(seen == [1, 2])
    #expect(moves.observerCount == 0 && release.observerCount == 0)
    #expect(moves.disconnects == 1 && release.disconnects == 1)
    subscription.unsubscribe()
    #expect(moves.disconnects == 1 && release.disconnects == 1)
  }

  /// Both streams end inside the other stream's delivery: a value sent once it has returned (by
  /// an observer of the other stream that comes after this one) is not passed on.
  @Test func theOtherStreamsValueDisconnectsBothBeforeItReturns() {
    let moves = CallbackSource<Int>()
    let release = CallbackSource<Void>()
    var order: [String] = []
    var seen: [Int] = []
    let stream = ValueObservable<Int> { observer in
      let disconnect = moves.stream.subscribe(observer: observer)
      return {
        order.append("moves")
        disconnect.unsubscribe()
      }
    }
    let trigger = ValueObservable<Void> { observer in
      let disconnect = release.stream.subscribe(observer: observer)
      return {
        order.append("release")
        disconnect.unsubscribe()
      }
    }
    let subscription = stream.prefix(untilOutputFrom: trigger).subscribe { seen.append($0) }
    let late = release.stream.subscribe { moves.emit(99) }
    moves.emit(1)
    release.emit(())
    #expect(seen == [1])
    #expect(order == ["release", "moves"])
    subscription.unsubscribe()
    late.unsubscribe()
    #expect(order == ["release", "moves"])
  }

  @Test func theOtherStreamConnectsFirstAndAValueItSendsWhileConnectingEndsTheStreamAtOnce() {
    let values = SynchronousSource([1, 2])
    let trigger = SynchronousSource([()])
    var seen: [Int] = []
    let subscription = values.stream.prefix(untilOutputFrom: trigger.stream).subscribe {
      seen.append($0)
    }
    #expect(seen == [])
    #expect(values.connects == 0)
    #expect(trigger.connects == 1 && trigger.disconnects == 1)
    subscription.unsubscribe()
    #expect(values.connects == 0 && trigger.disconnects == 1)
  }

  @Test func aStreamThatSendsWhileConnectingPassesItsValuesBeforeTheOtherDelivers() {
    let values = SynchronousSource([1, 2])
    let release = CallbackSource<Void>()
    var seen: [Int] = []
    let subscription = values.stream.prefix(untilOutputFrom: release.stream).subscribe {
      seen.append($0)
    }
    #expect(seen == [1, 2])
    release.emit(())
    #expect(values.disconnects == 1 && release.disconnects == 1)
    subscription.unsubscribe()
    #expect(values.disconnects == 1 && release.disconnects == 1)
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
      .prefix(untilOutputFrom: stream("other", Void.self)).subscribe { _ in }
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      order == ["connect other", "connect self", "disconnect other", "disconnect self"])
  }

  @Test func unsubscribingFromInsideADeliveryEndsBothStreams() {
    let moves = CallbackSource<Int>()
    let release = CallbackSource<Void>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = moves.stream.prefix(untilOutputFrom: release.stream).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    moves.emit(1)
    moves.emit(2)
    release.emit(())
    #expect(seen == [1])
    #expect(moves.observerCount == 0 && release.observerCount == 0)
    #expect(moves.disconnects == 1 && release.disconnects == 1)
  }

  @Test func eachSubscriptionWaitsForItsOwnValueOfTheOtherStream() {
    let moves = CallbackSource<Int>()
    let release = CallbackSource<Void>()
    let dragging = moves.stream.prefix(untilOutputFrom: release.stream)
    var first: [Int] = []
    var second: [Int] = []
    let early = dragging.subscribe { first.append($0) }
    moves.emit(1)
    release.emit(())
    let late = dragging.subscribe { second.append($0) }
    moves.emit(2)
    moves.emit(3)
    release.emit(())
    moves.emit(4)
    #expect(first == [1])
    #expect(second == [2, 3])
    #expect(moves.connects == 2 && moves.disconnects == 2)
    #expect(release.connects == 2 && release.disconnects == 2)
    early.unsubscribe()
    late.unsubscribe()
  }

  /// The other stream's value, on a thread of its own, races `unsubscribe()` on this one: each
  /// stream is disconnected exactly once, whichever wins.
  @Test func theOtherStreamsValueAndUnsubscribeOnTwoThreadsDisconnectEachOnce() {
    for _ in 0..<200 {
      let values = ThreadSafeSource<Int>()
      let trigger = ThreadSafeSource<Int>()
      let subscription = values.stream.prefix(untilOutputFrom: trigger.stream).subscribe { _ in }
      let triggered = startThread { trigger.emit(1) }
      subscription.unsubscribe()
      triggered.wait()
      #expect(values.disconnects == 1 && trigger.disconnects == 1)
      #expect(values.observerCount == 0 && trigger.observerCount == 0)
    }
  }
}
