import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct ScanTests {
  @Test func accumulatesRunningResults() {
    var seen: [Int] = []
    SynchronousSource([1, 2, 3, 4]).stream.scan(0, +).subscribe { seen.append($0) }
    #expect(seen == [1, 3, 6, 10])
  }

  @Test func changesTheValueType() {
    var seen: [[String]] = []
    SynchronousSource(["a", "b"]).stream.scan([String]()) { $0 + [$1] }.subscribe {
      seen.append($0)
    }
    #expect(seen == [["a"], ["a", "b"]])
  }

  @Test func eachSubscriptionStartsFromTheInitialResult() {
    let totals = SynchronousSource([1, 1]).stream.scan(10, +)
    var first: [Int] = []
    var second: [Int] = []
    totals.subscribe { first.append($0) }
    totals.subscribe { second.append($0) }
    #expect(first == [11, 12])
    #expect(second == [11, 12])
  }
}
