import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct CollectTests {
  @Test func passesOnBatchesOfCount() {
    let source = CallbackSource<Int>()
    var batches: [[Int]] = []
    let subscription = source.stream.collect(3).subscribe { batches.append($0) }
    for value in 1...7 { source.emit(value) }
    #expect(batches == [[1, 2, 3], [4, 5, 6]])
    subscription.unsubscribe()
  }

  @Test(arguments: [0, 1, -3]) func aCountOfOneOrLessPassesEveryValueInABatchOfItsOwn(count: Int) {
    let source = SynchronousSource([1, 2, 3])
    var batches: [[Int]] = []
    source.stream.collect(count).subscribe { batches.append($0) }.unsubscribe()
    #expect(batches == [[1], [2], [3]])
  }

  @Test func anUnfinishedBatchIsReleasedWhenTheSubscriptionEnds() {
    let source = CallbackSource<Witness>()
    let subscription = source.stream.collect(2).subscribe { _ in }
    weak var waiting: Witness?
    do {
      let witness = Witness()
      waiting = witness
      source.emit(witness)
    }
    #expect(waiting != nil)
    subscription.unsubscribe()
    #expect(waiting == nil)
  }

  /// The subscriber sends into the source from inside a batch's delivery: the batch it received
  /// is complete and the next one starts empty.
  @Test func aValueSentFromInsideABatchsDeliveryStartsTheNextBatch() {
    let source = CallbackSource<Int>()
    var batches: [[Int]] = []
    let subscription = source.stream.collect(2).subscribe { batch in
      batches.append(batch)
      if batch == [1, 2] {
        source.emit(3)
        source.emit(4)
      }
    }
    source.emit(1)
    source.emit(2)
    #expect(batches == [[1, 2], [3, 4]])
    subscription.unsubscribe()
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<Int>()
    var batches: [[Int]] = []
    var subscription: Subscription?
    subscription = source.stream.collect(2).subscribe { batch in
      batches.append(batch)
      subscription?.unsubscribe()
    }
    for value in 1...4 { source.emit(value) }
    #expect(batches == [[1, 2]])
    #expect(source.observerCount == 0)
  }

  @Test func eachSubscriptionCollectsItsOwnBatches() {
    let source = CallbackSource<Int>()
    let pairs = source.stream.collect(2)
    var early: [[Int]] = []
    var late: [[Int]] = []
    let a = pairs.subscribe { early.append($0) }
    source.emit(1)
    let b = pairs.subscribe { late.append($0) }
    source.emit(2)
    source.emit(3)
    #expect(early == [[1, 2]])
    #expect(late == [[2, 3]])
    a.unsubscribe()
    b.unsubscribe()
  }
}
