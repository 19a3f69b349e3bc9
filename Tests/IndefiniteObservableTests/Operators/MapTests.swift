import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct MapTests {
  @Test func transformsEveryValue() {
    var seen: [String] = []
    SynchronousSource([1, 2, 3]).stream.map { "#\($0)" }.subscribe { seen.append($0) }
    #expect(seen == ["#1", "#2", "#3"])
  }

  @Test func transformRunsOncePerValueAndSubscription() {
    let source = CallbackSource<Int>()
    var calls = 0
    let mapped = source.stream.map { value -> Int in
      calls += 1
      return value * 2
    }
    var first: [Int] = []
    var second: [Int] = []
    mapped.subscribe { first.append($0) }
    mapped.subscribe { second.append($0) }
    source.emit(21)
    #expect(first == [42])
    #expect(second == [42])
    #expect(calls == 2)
  }
}
