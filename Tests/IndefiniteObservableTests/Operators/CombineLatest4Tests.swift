import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `combineLatest` of four streams.
@Suite(.checksLiveResources) struct CombineLatest4Tests {
  @Test func waitsForAllFourThenCombinesTheLatest() {
    let w = CallbackSource<Int>()
    let x = CallbackSource<String>()
    let y = CallbackSource<Bool>()
    let z = CallbackSource<Double>()
    var seen: [String] = []
    let subscription = w.stream.combineLatest(x.stream, y.stream, z.stream).subscribe {
      seen.append("\($0) \($1) \($2) \($3)")
    }
    w.emit(1)
    x.emit("a")
    y.emit(true)
    w.emit(2)
    #expect(seen == [])
    z.emit(0.5)
    x.emit("b")
    y.emit(false)
    w.emit(3)
    z.emit(1)
    #expect(
      seen == [
        "2 a true 0.5", "2 b true 0.5", "2 b false 0.5", "3 b false 0.5", "3 b false 1.0",
      ])
    subscription.unsubscribe()
  }

  @Test func connectsAndDisconnectsEachStreamOnceInOrder() {
    var order: [String] = []
    func stream(_ name: String) -> ValueObservable<Int> {
      ValueObservable { _ in
        order.append("connect \(name)")
        return { order.append("disconnect \(name)") }
      }
    }
    let subscription = stream("1").combineLatest(stream("2"), stream("3"), stream("4"))
      .subscribe { _ in }
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      order == [
        "connect 1", "connect 2", "connect 3", "connect 4",
        "disconnect 1", "disconnect 2", "disconnect 3", "disconnect 4",
      ])
  }

  @Test func valuesSentWhileConnectingAreCombined() {
    let sources = [SynchronousSource([1, 2]), SynchronousSource([10]), SynchronousSource([100])]
    let last = SynchronousSource([1000, 2000])
    var seen: [Int] = []
    let subscription = sources[0].stream.combineLatest(
      sources[1].stream, sources[2].stream, last.stream
    )
    .subscribe { seen.append($0 + $1 + $2 + $3) }
    #expect(seen == [1112, 2112])
    subscription.unsubscribe()
    #expect(sources.map(\.disconnects) == [1, 1, 1] && last.disconnects == 1)
  }

  @Test func unsubscribingFromInsideADeliveryEndsEveryStream() {
    let sources = (0..<4).map { _ in CallbackSource<Int>() }
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = sources[0].stream.combineLatest(
      sources[1].stream, sources[2].stream, sources[3].stream
    )
    .subscribe { value, _, _, _ in
      seen.append(value)
      subscription?.unsubscribe()
    }
    for source in sources { source.emit(1) }
    for source in sources { source.emit(2) }
    #expect(seen == [1])
    #expect(sources.map(\.observerCount) == [0, 0, 0, 0])
    #expect(sources.map(\.disconnects) == [1, 1, 1, 1])
  }

  @Test func eachSubscriptionKeepsItsOwnLatestValues() {
    let sources = (0..<4).map { _ in CallbackSource<Int>() }
    let sums = sources[0].stream.combineLatest(
      sources[1].stream, sources[2].stream, sources[3].stream
    )
    .map { $0 + $1 + $2 + $3 }
    var first: [Int] = []
    var second: [Int] = []
    let early = sums.subscribe { first.append($0) }
    for source in sources { source.emit(1) }
    let late = sums.subscribe { second.append($0) }
    sources[0].emit(5)
    for source in sources { source.emit(2) }
    #expect(first == [4, 8, 5, 6, 7, 8])
    #expect(second == [8])
    #expect(sources.map(\.connects) == [2, 2, 2, 2])
    early.unsubscribe()
    late.unsubscribe()
    #expect(sources.map(\.observerCount) == [0, 0, 0, 0])
  }

  /// Nested combinations pass on what a flat one of all the streams would, at the same values:
  /// how more than four streams of different types are combined.
  @Test func nestingCombinesMoreStreamsAsAFlatCombinationWould() {
    let sources = (0..<6).map { _ in CallbackSource<Int>() }
    var nested: [[Int]] = []
    var flat: [[Int]] = []
    let nesting = sources[0].stream.combineLatest(
      sources[1].stream, sources[2].stream, sources[3].stream
    )
    .combineLatest(sources[4].stream, sources[5].stream)
    .subscribe { abcd, e, f in nested.append([abcd.0, abcd.1, abcd.2, abcd.3, e, f]) }
    let flattening = sources.map(\.stream).combineLatest().subscribe { flat.append($0) }
    for (index, source) in [0, 5, 1, 2, 4, 3, 0, 4, 5, 2].enumerated() {
      sources[source].emit(index)
    }
    #expect(nested == flat)
    #expect(nested.count == 5)
    nesting.unsubscribe()
    flattening.unsubscribe()
  }
}
