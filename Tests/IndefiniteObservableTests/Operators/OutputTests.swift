import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct OutputTests {
  @Test func outputAtPassesOnTheValueAtTheIndexThenDisconnects() {
    let source = CallbackSource<String>()
    var seen: [String] = []
    var observersSeen: [Int] = []
    let subscription = source.stream.output(at: 2).subscribe {
      seen.append($0)
      observersSeen.append(source.observerCount)
    }
    for value in ["a", "b", "c", "d"] { source.emit(value) }
    #expect(seen == ["c"])
    #expect(observersSeen == [0])  // Disconnected before the value was passed on.
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func outputAtCountsTheValuesSentWhileConnecting() {
    let source = SynchronousSource([10, 11, 12])
    var seen: [Int] = []
    let subscription = source.stream.output(at: 1).subscribe { seen.append($0) }
    #expect(seen == [11])
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
  }

  @Test func aNegativeIndexPassesNothingAndNeverConnects() {
    let source = SynchronousSource([1, 2])
    var seen: [Int] = []
    source.stream.output(at: -1).subscribe { seen.append($0) }.unsubscribe()
    #expect(seen == [])
    #expect(source.connects == 0)
  }

  @Test func outputInPassesOnTheValuesInTheRangeThenDisconnects() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.output(in: 1..<3).subscribe { seen.append($0) }
    for value in 10...14 { source.emit(value) }
    #expect(seen == [11, 12])
    #expect(source.observerCount == 0 && source.disconnects == 1)
    subscription.unsubscribe()
  }

  @Test func everyKindOfRangeNamesTheSamePositionsAsACollectionsIndices() {
    let values = Array(0..<10)
    func taken<R: RangeExpression>(_ range: R) -> [Int] where R.Bound == Int {
      var seen: [Int] = []
      SynchronousSource(values).stream.output(in: range).subscribe { seen.append($0) }
      return seen
    }
    #expect(taken(2..<5) == [2, 3, 4])
    #expect(taken(2...5) == [2, 3, 4, 5])
    #expect(taken(7...) == [7, 8, 9])
    #expect(taken(..<3) == [0, 1, 2])
    #expect(taken(...3) == [0, 1, 2, 3])
    #expect(taken(3..<3) == [])
    #expect(taken(-2..<2) == [0, 1])
    #expect(taken(-5...(-1)) == [])
    #expect(taken(...Int.max) == values)
    #expect(taken(5...Int.max) == [5, 6, 7, 8, 9])
    #expect(taken(Int.min...Int.max) == values)
  }

  @Test func aRangeWithoutEndNeverDisconnects() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.output(in: 1...).subscribe { seen.append($0) }
    for value in 0..<5 { source.emit(value) }
    #expect(seen == [1, 2, 3, 4])
    #expect(source.observerCount == 1)
    subscription.unsubscribe()
    #expect(source.observerCount == 0)
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.output(in: 0..<5).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    for value in 0..<5 { source.emit(value) }
    #expect(seen == [0])
    #expect(source.observerCount == 0 && source.disconnects == 1)
  }

  @Test func eachSubscriptionCountsItsOwnPositions() {
    let source = CallbackSource<Int>()
    let second = source.stream.output(at: 1)
    var early: [Int] = []
    var late: [Int] = []
    let a = second.subscribe { early.append($0) }
    source.emit(1)
    let b = second.subscribe { late.append($0) }
    source.emit(2)
    source.emit(3)
    #expect(early == [2])
    #expect(late == [3])
    a.unsubscribe()
    b.unsubscribe()
  }
}
