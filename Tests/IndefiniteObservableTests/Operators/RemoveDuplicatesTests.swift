import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct RemoveDuplicatesTests {
  @Test func dropsConsecutiveEqualValues() {
    var seen: [Int] = []
    SynchronousSource([1, 1, 2, 2, 2, 1, 3, 3]).stream.removeDuplicates().subscribe {
      seen.append($0)
    }
    #expect(seen == [1, 2, 1, 3])
  }

  @Test func comparesWithTheLastValuePassedOn() {
    var seen: [Int] = []
    // "Duplicate" means within 2 of the last value passed on: 1, 2, 3 are all within 2 of 1.
    SynchronousSource([1, 2, 3, 4, 10]).stream.removeDuplicates { abs($0 - $1) <= 2 }.subscribe {
      seen.append($0)
    }
    #expect(seen == [1, 4, 10])
  }

  @Test func eachSubscriptionStartsAfresh() {
    let source = CallbackSource<Int>()
    let distinct = source.stream.removeDuplicates()
    var first: [Int] = []
    distinct.subscribe { first.append($0) }
    source.emit(5)
    var second: [Int] = []
    distinct.subscribe { second.append($0) }
    source.emit(5)
    #expect(first == [5])
    #expect(second == [5])
  }
}
