import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct FilterTests {
  @Test func passesOnlyIncludedValues() {
    var seen: [Int] = []
    SynchronousSource(Array(1...6)).stream.filter { $0.isMultiple(of: 3) }.subscribe {
      seen.append($0)
    }
    #expect(seen == [3, 6])
  }

  @Test func filterThenMapOnTuples() {
    var seen: [Double] = []
    SynchronousSource([(false, 1.0), (true, 2.0)]).stream
      .filter { $0.0 }
      .map { $0.1 }
      .subscribe { seen.append($0) }
    #expect(seen == [2.0])
  }
}
