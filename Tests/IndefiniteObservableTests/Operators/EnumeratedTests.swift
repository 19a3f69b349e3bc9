import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct EnumeratedTests {
  @Test func passesEachValueWithItsPositionFromZero() {
    let source = CallbackSource<String>()
    var seen: [String] = []
    let subscription = source.stream.enumerated().subscribe {
      seen.append("\($0.offset)\($0.element)")
    }
    for letter in ["a", "b", "c"] { source.emit(letter) }
    #expect(seen == ["0a", "1b", "2c"])
    subscription.unsubscribe()
  }

  @Test func valuesSentWhileConnectingCountLikeAnyOther() {
    let source = SynchronousSource(["a", "b"])
    var offsets: [Int] = []
    let subscription = source.stream.enumerated().subscribe { offsets.append($0.offset) }
    #expect(offsets == [0, 1])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func eachSubscriptionCountsItsOwnValues() {
    let source = CallbackSource<String>()
    let numbered = source.stream.enumerated()
    var first: [String] = []
    var second: [String] = []
    let early = numbered.subscribe { first.append("\($0.offset)\($0.element)") }
    source.emit("a")
    source.emit("b")
    let late = numbered.subscribe { second.append("\($0.offset)\($0.element)") }
    source.emit("c")
    #expect(first == ["0a", "1b", "2c"])
    #expect(second == ["0c"])
    early.unsubscribe()
    late.unsubscribe()
    #expect(source.connects == 2 && source.disconnects == 2)
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<String>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.enumerated().subscribe { offset, _ in
      seen.append(offset)
      if offset == 1 { subscription?.unsubscribe() }
    }
    for letter in ["a", "b", "c", "d"] { source.emit(letter) }
    #expect(seen == [0, 1])
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  /// A value the subscriber makes the stream send from inside a delivery gets the next offset.
  @Test func aValueSentFromInsideADeliveryGetsTheNextOffset() {
    let source = CallbackSource<String>()
    var seen: [String] = []
    let subscription = source.stream.enumerated().subscribe { offset, element in
      seen.append("\(offset)\(element)")
      if element == "a" { source.emit("b") }
    }
    source.emit("a")
    source.emit("c")
    #expect(seen == ["0a", "1b", "2c"])
    subscription.unsubscribe()
  }
}
