import IndefiniteObservable
import TestSupport
import Testing

@Suite(.checksLiveResources) struct PairwiseTests {
  @Test func eachValueComesWithTheOneBeforeFromTheSecondOn() {
    let source = CallbackSource<Int>()
    var pairs: [String] = []
    let subscription = source.stream.pairwise().subscribe { pairs.append("\($0)>\($1)") }
    for value in [1, 2, 2, 5] { source.emit(value) }
    #expect(pairs == ["1>2", "2>2", "2>5"])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func eachSubscriptionKeepsItsOwnPreviousValue() {
    let source = CallbackSource<Int>()
    let pairwise = source.stream.pairwise()
    var first: [Int] = []
    var second: [Int] = []
    let a = pairwise.subscribe { first.append($0.previous * 10 + $0.current) }
    source.emit(1)
    let b = pairwise.subscribe { second.append($0.previous * 10 + $0.current) }
    source.emit(2)
    source.emit(3)
    #expect(first == [12, 23])
    #expect(second == [23])
    a.unsubscribe()
    b.unsubscribe()
    #expect(source.disconnects == 2)
  }

  @Test func unsubscribingInsideADeliveryStopsIt() {
    let source = CallbackSource<Int>()
    var pairs = 0
    var subscription: Subscription?
    subscription = source.stream.pairwise().subscribe { _ in
      pairs += 1
      subscription?.unsubscribe()
    }
    for value in 1...4 { source.emit(value) }
    #expect(pairs == 1)
    #expect(source.disconnects == 1)
  }
}
