import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `combineLatest` of three streams.
@Suite(.checksLiveResources) struct CombineLatest3Tests {
  @Test func waitsForAllThreeThenCombinesTheLatest() {
    let x = CallbackSource<Int>()
    let y = CallbackSource<String>()
    let z = CallbackSource<Bool>()
    var seen: [String] = []
    let subscription = x.stream.combineLatest(y.stream, z.stream).subscribe {
      seen.append("\($0) \($1) \($2)")
    }
    x.emit(1)
    y.emit("a")
    x.emit(2)
    #expect(seen == [])
    z.emit(true)
    y.emit("b")
    x.emit(3)
    z.emit(false)
    #expect(seen == ["2 a true", "2 b true", "3 b true", "3 b false"])
    subscription.unsubscribe()
  }

  @Test func unsubscribeDisconnectsAllThree() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    let subscription = sources[0].stream.combineLatest(sources[1].stream, sources[2].stream)
      .subscribe { _ in }
    #expect(sources.map(\.observerCount) == [1, 1, 1])
    subscription.unsubscribe()
    #expect(sources.map(\.disconnects) == [1, 1, 1])
    #expect(sources.map(\.observerCount) == [0, 0, 0])
  }

  @Test func eachSubscriptionKeepsItsOwnLatestValues() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    let sums = sources[0].stream.combineLatest(sources[1].stream, sources[2].stream)
      .map { $0 + $1 + $2 }
    var first: [Int] = []
    var second: [Int] = []
    let early = sums.subscribe { first.append($0) }
    for source in sources { source.emit(1) }
    let late = sums.subscribe { second.append($0) }
    sources[0].emit(5)
    sources[1].emit(5)
    #expect(first == [3, 7, 11])
    #expect(second == [])
    early.unsubscribe()
    late.unsubscribe()
  }
}
