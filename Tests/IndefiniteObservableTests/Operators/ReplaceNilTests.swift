import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct ReplaceNilTests {
  @Test func replacesEachNilAndPassesTheOtherValues() {
    var seen: [String] = []
    SynchronousSource<String?>(["a", nil, "b", nil]).stream.replaceNil(with: "-")
      .subscribe { seen.append($0) }.unsubscribe()
    #expect(seen == ["a", "-", "b", "-"])
  }

  @Test func aFilterAfterItSeesTheReplacedValues() {
    var seen: [Int] = []
    SynchronousSource<Int?>([1, nil, 3]).stream.replaceNil(with: 0).filter { $0 > 0 }
      .subscribe { seen.append($0) }.unsubscribe()
    #expect(seen == [1, 3])
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<Int?>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.replaceNil(with: 0).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    source.emit(nil)
    source.emit(2)
    #expect(seen == [0])
    #expect(source.observerCount == 0)
  }
}
