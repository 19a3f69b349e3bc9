import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `zip()` of a sequence of streams.
@Suite(.checksLiveResources) struct SequenceZipTests {
  @Test func passesTheValuesOfEveryStreamByPositionInTheSequencesOrder() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    var seen: [[Int]] = []
    let subscription = sources.map(\.stream).zip().subscribe { seen.append($0) }
    sources[2].emit(20)
    sources[0].emit(0)
    sources[0].emit(1)
    sources[2].emit(21)
    #expect(seen == [])
    sources[1].emit(10)
    #expect(seen == [[0, 10, 20]])
    sources[1].emit(11)
    sources[1].emit(12)
    sources[0].emit(2)
    #expect(seen == [[0, 10, 20], [1, 11, 21]])
    sources[2].emit(22)
    #expect(seen == [[0, 10, 20], [1, 11, 21], [2, 12, 22]])
    subscription.unsubscribe()
  }

  /// A backlog far longer than a buffer's first storage keeps its order.
  @Test func aLongBacklogKeepsItsOrder() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    var seen: [[Int]] = []
    let subscription = sources.map(\.stream).zip().subscribe { seen.append($0) }
    for value in 0..<500 { sources[0].emit(value) }
    for value in 0..<500 { sources[2].emit(-value) }
    for value in 0..<500 { sources[1].emit(value * 10) }
    #expect(seen == (0..<500).map { [$0, $0 * 10, -$0] })
    subscription.unsubscribe()
  }

  @Test func streamsThatSendWhileConnectingAreZippedInOrder() {
    var seen: [[String]] = []
    let streams = [
      SynchronousSource(["a1", "a2"]), SynchronousSource(["b1"]), SynchronousSource(["c1", "c2"]),
    ]
    let subscription = streams.map(\.stream).zip().subscribe { seen.append($0) }
    #expect(seen == [["a1", "b1", "c1"]])
    subscription.unsubscribe()
    #expect(streams.map(\.disconnects) == [1, 1, 1])
  }

  @Test func aSingleStreamGivesOneElementArrays() {
    var seen: [[Int]] = []
    [SynchronousSource([1, 2]).stream].zip().subscribe { seen.append($0) }
    #expect(seen == [[1], [2]])
  }

  @Test func anEmptySequenceNeverDelivers() {
    var seen: [[Int]] = []
    let subscription = [ValueObservable<Int>]().zip().subscribe { seen.append($0) }
    subscription.unsubscribe()
    #expect(seen == [])
  }

  @Test func unsubscribeDisconnectsEveryStreamInTheOrderTheyConnected() {
    var order: [String] = []
    func stream(_ name: String) -> ValueObservable<Int> {
      ValueObservable { _ in
        order.append("connect \(name)")
        return { order.append("disconnect \(name)") }
      }
    }
    let subscription = [stream("a"), stream("b"), stream("c")].zip().subscribe { _ in }
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      order == [
        "connect a", "connect b", "connect c", "disconnect a", "disconnect b", "disconnect c",
      ])
  }

  @Test func unsubscribingFromInsideADeliveryEndsEveryStream() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    var seen: [[Int]] = []
    var subscription: Subscription?
    subscription = sources.map(\.stream).zip().subscribe { values in
      seen.append(values)
      subscription?.unsubscribe()
    }
    for value in 1...2 {
      for source in sources { source.emit(value) }
    }
    #expect(seen == [[1, 1, 1]])
    #expect(sources.map(\.observerCount) == [0, 0, 0])
    #expect(sources.map(\.disconnects) == [1, 1, 1])
  }

  @Test func unmatchedValuesAreReleasedWhenTheSubscriptionEnds() {
    let sources = (0..<2).map { _ in CallbackSource<Witness>() }
    let subscription = sources.map(\.stream).zip().subscribe { _ in }
    weak var matched: Witness?
    weak var unmatched: Witness?
    do {
      let first = Witness()
      let second = Witness()
      let third = Witness()
      matched = first
      unmatched = third
      sources[0].emit(first)
      sources[1].emit(second)
      sources[0].emit(third)
    }
    #expect(matched == nil)
    #expect(unmatched != nil)
    subscription.unsubscribe()
    #expect(unmatched == nil)
  }

  @Test func eachSubscriptionHasItsOwnBuffers() {
    let sources = (0..<2).map { _ in CallbackSource<Int>() }
    let zipped = sources.map(\.stream).zip()
    var first: [[Int]] = []
    var second: [[Int]] = []
    let early = zipped.subscribe { first.append($0) }
    sources[0].emit(1)
    let late = zipped.subscribe { second.append($0) }
    sources[0].emit(2)
    sources[1].emit(10)
    #expect(first == [[1, 10]])
    #expect(second == [[2, 10]])
    early.unsubscribe()
    late.unsubscribe()
    #expect(sources.map(\.disconnects) == [2, 2])
  }
}
