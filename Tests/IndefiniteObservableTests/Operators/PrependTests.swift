import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct PrependTests {
  @Test func sendsPrependedValuesFirst() {
    let source = CallbackSource<String>()
    var seen: [String] = []
    source.stream.prepend("a", "b").subscribe { seen.append($0) }
    source.emit("c")
    #expect(seen == ["a", "b", "c"])
  }

  @Test func prependsToEverySubscription() {
    let stream = SynchronousSource([3]).stream.prepend([1, 2])
    var first: [Int] = []
    var second: [Int] = []
    stream.subscribe { first.append($0) }
    stream.subscribe { second.append($0) }
    #expect(first == [1, 2, 3])
    #expect(second == [1, 2, 3])
  }

  @Test func iteratesALazySequenceOnce() {
    var evaluations = 0
    let lazyValues = [1, 2].lazy.map { value -> Int in
      evaluations += 1
      return value
    }
    let stream = SynchronousSource([Int]()).stream.prepend(lazyValues)
    stream.subscribe { _ in }
    stream.subscribe { _ in }
    #expect(evaluations == 2)
  }
}
