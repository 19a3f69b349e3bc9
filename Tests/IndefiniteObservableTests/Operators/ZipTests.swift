import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct ZipTests {
  @Test func pairsTheValuesOfBothStreamsByPosition() {
    let requests = CallbackSource<Int>()
    let responses = CallbackSource<String>()
    var seen: [String] = []
    let subscription = requests.stream.zip(responses.stream).subscribe { seen.append("\($0)\($1)") }
    requests.emit(1)
    requests.emit(2)
    responses.emit("a")
    responses.emit("b")
    requests.emit(3)
    responses.emit("c")
    responses.emit("d")
    requests.emit(4)
    #expect(seen == ["1a", "2b", "3c", "4d"])
    subscription.unsubscribe()
  }

  @Test func anUnpairedValueWaitsForItsPartner() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    var seen: [[Int]] = []
    let subscription = left.stream.zip(right.stream).subscribe { seen.append([$0, $1]) }
    left.emit(1)
    left.emit(2)
    left.emit(3)
    #expect(seen == [])
    right.emit(10)
    #expect(seen == [[1, 10]])
    subscription.unsubscribe()
  }

  /// A backlog far longer than the buffer's first storage, and a stream that stays ahead while
  /// values come and go, so that the buffer grows and wraps around: the pairs keep their order.
  @Test func aLongBacklogKeepsItsOrder() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    var seen: [[Int]] = []
    let subscription = left.stream.zip(right.stream).subscribe { seen.append([$0, $1]) }
    for value in 0..<1000 { left.emit(value) }
    for value in 0..<1000 { right.emit(-value) }
    #expect(seen == (0..<1000).map { [$0, -$0] })

    seen = []
    for value in 0..<3 { right.emit(-value) }
    for value in 0..<99 {
      left.emit(value)
      right.emit(-(value + 3))
    }
    // The right stream is 3 ahead and its buffer has wrapped around; now it grows from there.
    for value in 102..<112 { right.emit(-value) }
    for value in 99..<112 { left.emit(value) }
    #expect(seen == (0..<112).map { [$0, -$0] })
    subscription.unsubscribe()
  }

  @Test func aPairedValueIsReleasedOnceItHasBeenPassedOn() {
    let left = CallbackSource<Witness>()
    let right = CallbackSource<Int>()
    let subscription = left.stream.zip(right.stream).subscribe { _ in }
    weak var paired: Witness?
    do {
      let witness = Witness()
      paired = witness
      left.emit(witness)
    }
    #expect(paired != nil)  // Waiting for its partner.
    right.emit(1)
    #expect(paired == nil)
    subscription.unsubscribe()
  }

  @Test func unpairedValuesAreReleasedWhenTheSubscriptionEnds() {
    let left = CallbackSource<Witness>()
    let right = CallbackSource<Int>()
    let subscription = left.stream.zip(right.stream).subscribe { _ in }
    weak var unpaired: Witness?
    do {
      let witness = Witness()
      unpaired = witness
      left.emit(witness)
    }
    #expect(unpaired != nil)
    subscription.unsubscribe()
    #expect(unpaired == nil)
  }

  @Test func eachSubscriptionHasItsOwnBuffers() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    let pairs = left.stream.zip(right.stream)
    var first: [[Int]] = []
    var second: [[Int]] = []
    let early = pairs.subscribe { first.append([$0, $1]) }
    left.emit(1)
    let late = pairs.subscribe { second.append([$0, $1]) }
    left.emit(2)
    right.emit(10)
    #expect(first == [[1, 10]])
    #expect(second == [[2, 10]])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test func unsubscribeDisconnectsBothStreams() {
    let left = CallbackSource<Int>()
    let right = CallbackSource<Int>()
    let subscription = left.stream.zip(right.stream).subscribe { _ in }
    #expect(left.observerCount == 1 && right.observerCount == 1)
    subscription.unsubscribe()
    #expect(left.disconnects == 1 && right.disconnects == 1)
    #expect(left.observerCount == 0 && right.observerCount == 0)
  }
}
