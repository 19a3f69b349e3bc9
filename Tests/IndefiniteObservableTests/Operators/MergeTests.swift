import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct MergeTests {
  @Test func interleavesValuesInArrivalOrder() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    var seen: [Int] = []
    left.stream.merge(with: right.stream).subscribe { seen.append($0) }
    left.emit(1)
    right.emit(2)
    left.emit(3)
    #expect(seen == [1, 2, 3])
  }

  @Test func mergesSeveralStreams() {
    var seen: [Int] = []
    SynchronousSource([1]).stream
      .merge(with: SynchronousSource([2]).stream, SynchronousSource([3]).stream)
      .subscribe { seen.append($0) }
    #expect(seen == [1, 2, 3])
  }

  @Test func unsubscribeDisconnectsEverySource() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    let subscription = left.stream.merge(with: right.stream).subscribe { _ in }
    #expect(left.observerCount == 1)
    #expect(right.observerCount == 1)
    subscription.unsubscribe()
    #expect(left.observerCount == 0)
    #expect(right.observerCount == 0)
  }
}
