import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct WithLatestFromTests {
  @Test func pairsEachValueWithTheLatestOfTheOtherStream() {
    let taps = CallbackSource<Int>()
    let query = CallbackSource<String>()
    var seen: [String] = []
    let subscription = taps.stream.withLatestFrom(query.stream).subscribe {
      seen.append("\($0)\($1)")
    }
    query.emit("a")
    taps.emit(1)
    taps.emit(2)
    query.emit("b")
    query.emit("c")
    taps.emit(3)
    #expect(seen == ["1a", "2a", "3c"])
    subscription.unsubscribe()
  }

  @Test func valuesBeforeTheOtherStreamHasDeliveredAreDropped() {
    let taps = CallbackSource<Int>()
    let query = CallbackSource<String>()
    var calls = 0
    var seen: [String] = []
    let subscription = taps.stream.withLatestFrom(query.stream) { value, text -> String in
      calls += 1
      return "\(value)\(text)"
    }.subscribe { seen.append($0) }
    taps.emit(1)
    taps.emit(2)
    #expect(seen == [] && calls == 0)
    query.emit("a")
    taps.emit(3)
    #expect(seen == ["3a"])
    #expect(calls == 1)
    subscription.unsubscribe()
  }

  @Test func valuesOfTheOtherStreamAlonePassNothingOn() {
    let taps = CallbackSource<Int>()
    let query = CallbackSource<String>()
    var seen: [String] = []
    let subscription = taps.stream.withLatestFrom(query.stream) { "\($0)\($1)" }
      .subscribe { seen.append($0) }
    query.emit("a")
    query.emit("b")
    #expect(seen == [])
    taps.emit(1)
    #expect(seen == ["1b"])
    subscription.unsubscribe()
  }

  /// The other stream connects first: what it sends while connecting is there for the values
  /// this stream sends while connecting. Connected the other way round, nothing would pass.
  @Test func theOtherStreamConnectsFirst() {
    let values = SynchronousSource([1, 2])
    let latest = SynchronousSource(["a", "b"])
    var seen: [String] = []
    let subscription = values.stream.withLatestFrom(latest.stream).subscribe {
      seen.append("\($0)\($1)")
    }
    #expect(seen == ["1b", "2b"])
    subscription.unsubscribe()
    #expect(values.disconnects == 1 && latest.disconnects == 1)
  }

  @Test func unsubscribeDisconnectsBothStreamsInTheOrderTheyConnected() {
    var order: [String] = []
    func stream(_ name: String) -> ValueObservable<Int> {
      ValueObservable { _ in
        order.append("connect \(name)")
        return { order.append("disconnect \(name)") }
      }
    }
    let subscription = stream("self").withLatestFrom(stream("other")).subscribe { _ in }
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      order == ["connect other", "connect self", "disconnect other", "disconnect self"])
  }

  @Test func unsubscribingFromInsideADeliveryEndsBothStreams() {
    let taps = CallbackSource<Int>()
    let query = CallbackSource<String>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = taps.stream.withLatestFrom(query.stream).subscribe { value, _ in
      seen.append(value)
      subscription?.unsubscribe()
    }
    query.emit("a")
    taps.emit(1)
    taps.emit(2)
    query.emit("b")
    taps.emit(3)
    #expect(seen == [1])
    #expect(taps.observerCount == 0 && query.observerCount == 0)
    #expect(taps.disconnects == 1 && query.disconnects == 1)
  }

  @Test func eachSubscriptionKeepsItsOwnLatestValue() {
    let taps = CallbackSource<Int>()
    let query = CallbackSource<String>()
    let tapped = taps.stream.withLatestFrom(query.stream)
    var first: [String] = []
    var second: [String] = []
    let early = tapped.subscribe { first.append("\($0)\($1)") }
    query.emit("a")
    let late = tapped.subscribe { second.append("\($0)\($1)") }
    taps.emit(1)
    query.emit("b")
    taps.emit(2)
    #expect(first == ["1a", "2b"])
    #expect(second == ["2b"])
    #expect(query.connects == 2 && taps.connects == 2)
    early.unsubscribe()
    late.unsubscribe()
    #expect(query.disconnects == 2 && taps.disconnects == 2)
  }

  @Test func theLatestValueIsReleasedWhenTheSubscriptionEnds() {
    let taps = CallbackSource<Int>()
    let latest = CallbackSource<Witness>()
    let subscription = taps.stream.withLatestFrom(latest.stream).subscribe { _ in }
    weak var kept: Witness?
    do {
      let witness = Witness()
      kept = witness
      latest.emit(witness)
    }
    #expect(kept != nil)
    subscription.unsubscribe()
    #expect(kept == nil)
  }
}
