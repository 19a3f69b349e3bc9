import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct CombineLatestTests {
  @Test func waitsForBothThenPairsTheLatest() {
    let width = CallbackSource<Int>()
    let height = CallbackSource<Int>()
    var seen: [String] = []
    width.stream.combineLatest(height.stream).subscribe { seen.append("\($0)x\($1)") }
    width.emit(1)
    width.emit(2)
    height.emit(10)
    width.emit(3)
    height.emit(20)
    #expect(seen == ["2x10", "3x10", "3x20"])
  }

  @Test func unsubscribeDisconnectsBothSources() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<String>()
    let subscription = left.stream.combineLatest(right.stream).subscribe { _ in }
    subscription.unsubscribe()
    #expect(left.disconnects == 1)
    #expect(right.disconnects == 1)
    #expect(left.observerCount == 0 && right.observerCount == 0)
  }

  @Test func eachSubscriptionKeepsItsOwnLatestValues() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    let pairs = left.stream.combineLatest(right.stream)
    var first: [Int] = []
    pairs.subscribe { first.append($0 + $1) }
    left.emit(1)
    right.emit(1)
    var second: [Int] = []
    pairs.subscribe { second.append($0 + $1) }
    left.emit(5)
    #expect(first == [2, 6])
    #expect(second == [])
  }
}
