import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct Zip4Tests {
  @Test func pairsTheValuesOfTheFourStreamsByPosition() {
    let sources = (0..<4).map { _ in CallbackSource<Int>() }
    var seen: [[Int]] = []
    let subscription = sources[0].stream.zip(
      sources[1].stream, sources[2].stream, sources[3].stream
    )
    .subscribe { seen.append([$0, $1, $2, $3]) }
    // Each stream in turn completes a quadruple; the others run ahead by different amounts.
    for value in 0..<30 { sources[1].emit(value) }
    for value in 0..<20 { sources[2].emit(value) }
    for value in 0..<10 { sources[3].emit(value) }
    for value in 0..<30 { sources[0].emit(value) }
    #expect(seen.count == 10)
    for value in 10..<20 { sources[3].emit(value) }
    for value in 20..<30 { sources[2].emit(value) }
    #expect(seen.count == 20)
    for value in 20..<30 { sources[3].emit(value) }
    #expect(seen == (0..<30).map { [$0, $0, $0, $0] })
    subscription.unsubscribe()
  }

  @Test func unsubscribeDisconnectsTheStreamsInOrder() {
    var order: [Int] = []
    func stream(_ number: Int) -> ValueObservable<Int> {
      ValueObservable { _ in { order.append(number) } }
    }
    let subscription = stream(1).zip(stream(2), stream(3), stream(4)).subscribe { _ in }
    subscription.unsubscribe()
    #expect(order == [1, 2, 3, 4])
  }

  @Test func unsubscribingFromInsideADeliveryEndsEveryStream() {
    let sources = (0..<4).map { _ in CallbackSource<Int>() }
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = sources[0].stream.zip(sources[1].stream, sources[2].stream, sources[3].stream)
      .subscribe { value, _, _, _ in
        seen.append(value)
        subscription?.unsubscribe()
      }
    for value in 1...2 {
      for source in sources { source.emit(value) }
    }
    #expect(seen == [1])
    #expect(sources.map(\.observerCount) == [0, 0, 0, 0])
  }

  @Test func unpairedValuesAreReleasedWhenTheSubscriptionEnds() {
    let first = CallbackSource<Witness>()
    let others = (0..<3).map { _ in CallbackSource<Int>() }
    let subscription = first.stream.zip(others[0].stream, others[1].stream, others[2].stream)
      .subscribe { _ in }
    weak var waiting: Witness?
    do {
      let witness = Witness()
      waiting = witness
      first.emit(witness)
    }
    #expect(waiting != nil)
    subscription.unsubscribe()
    #expect(waiting == nil)
  }
}
