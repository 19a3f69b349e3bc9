import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct Zip3Tests {
  @Test func triplesTheValuesOfTheThreeStreamsByPosition() {
    let first = CallbackSource<Int>()
    let second = CallbackSource<String>()
    let third = CallbackSource<Bool>()
    var seen: [String] = []
    let subscription = first.stream.zip(second.stream, third.stream)
      .subscribe { seen.append("\($0)\($1)\($2 ? "+" : "-")") }
    first.emit(1)
    first.emit(2)
    second.emit("a")
    #expect(seen == [])
    third.emit(true)
    #expect(seen == ["1a+"])
    third.emit(false)
    second.emit("b")
    third.emit(true)
    first.emit(3)
    second.emit("c")
    #expect(seen == ["1a+", "2b-", "3c+"])
    subscription.unsubscribe()
  }

  /// Each stream takes its turn to be the one that completes a triple, with the others ahead by
  /// different amounts, long enough for the buffers to grow and wrap around.
  @Test func aLongBacklogOnAnyStreamKeepsItsOrder() {
    let first = CallbackSource<Int>()
    let second = CallbackSource<Int>()
    let third = CallbackSource<Int>()
    var seen: [[Int]] = []
    let subscription = first.stream.zip(second.stream, third.stream)
      .subscribe { seen.append([$0, $1, $2]) }
    for value in 0..<100 { second.emit(value) }
    for value in 0..<50 { third.emit(value) }
    for value in 0..<100 { first.emit(value) }
    for value in 50..<100 { third.emit(value) }
    #expect(seen == (0..<100).map { [$0, $0, $0] })
    subscription.unsubscribe()
  }

  @Test func unpairedValuesAreReleasedWhenTheSubscriptionEnds() {
    let first = CallbackSource<Witness>()
    let second = CallbackSource<Witness>()
    let third = CallbackSource<Int>()
    let subscription = first.stream.zip(second.stream, third.stream).subscribe { _ in }
    weak var waitingFirst: Witness?
    weak var waitingSecond: Witness?
    do {
      let a = Witness()
      let b = Witness()
      waitingFirst = a
      waitingSecond = b
      first.emit(a)
      second.emit(b)
    }
    #expect(waitingFirst != nil && waitingSecond != nil)
    subscription.unsubscribe()
    #expect(waitingFirst == nil && waitingSecond == nil)
  }

  @Test func unsubscribeDisconnectsTheStreamsInOrder() {
    var order: [String] = []
    func stream(_ name: String) -> ValueObservable<Int> {
      ValueObservable { _ in { order.append(name) } }
    }
    let subscription = stream("first").zip(stream("second"), stream("third")).subscribe { _ in }
    subscription.unsubscribe()
    #expect(order == ["first", "second", "third"])
  }

  @Test func unsubscribingFromInsideADeliveryEndsEveryStream() {
    let first = CallbackSource<Int>()
    let second = CallbackSource<Int>()
    let third = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = first.stream.zip(second.stream, third.stream).subscribe { value, _, _ in
      seen.append(value)
      subscription?.unsubscribe()
    }
    for value in 1...2 {
      first.emit(value)
      second.emit(value)
      third.emit(value)
    }
    #expect(seen == [1])
    #expect(first.observerCount == 0 && second.observerCount == 0 && third.observerCount == 0)
  }

  @Test func eachSubscriptionHasItsOwnBuffers() {
    let first = CallbackSource<Int>()
    let second = CallbackSource<Int>()
    let third = CallbackSource<Int>()
    let triples = first.stream.zip(second.stream, third.stream)
    var early: [[Int]] = []
    var late: [[Int]] = []
    let a = triples.subscribe { early.append([$0, $1, $2]) }
    first.emit(1)
    let b = triples.subscribe { late.append([$0, $1, $2]) }
    first.emit(2)
    second.emit(10)
    third.emit(20)
    #expect(early == [[1, 10, 20]])
    #expect(late == [[2, 10, 20]])
    a.unsubscribe()
    b.unsubscribe()
  }
}
