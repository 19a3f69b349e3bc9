import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct CompactMapTests {
  @Test func dropsNilResults() {
    var seen: [Int] = []
    SynchronousSource(["1", "two", "3", ""]).stream.compactMap { Int($0) }.subscribe {
      seen.append($0)
    }
    #expect(seen == [1, 3])
  }
}
