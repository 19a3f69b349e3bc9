import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct PrintTests {
  /// A stream of text that keeps what is written to it, as a log object would.
  final class Lines: TextOutputStream {
    var text = ""
    func write(_ string: String) { text += string }
  }

  @Test func printsALineForEachEventWithThePrefix() {
    let source = CallbackSource<Int>()
    let lines = Lines()
    var seen: [Int] = []
    let subscription = source.stream.print("numbers", to: lines).subscribe { seen.append($0) }
    source.emit(1)
    source.emit(2)
    subscription.unsubscribe()
    #expect(seen == [1, 2])
    #expect(
      lines.text == """
        numbers: receive subscription
        numbers: receive value: (1)
        numbers: receive value: (2)
        numbers: receive cancel

        """)
  }

  @Test func anEmptyPrefixPrintsTheBareEvents() {
    let lines = Lines()
    SynchronousSource(["a"]).stream.print(to: lines).subscribe { _ in }.unsubscribe()
    #expect(lines.text == "receive subscription\nreceive value: (a)\nreceive cancel\n")
  }

  @Test func unsubscribingFromInsideADeliveryPrintsTheCancelAfterTheValue() {
    let source = CallbackSource<Int>()
    let lines = Lines()
    var subscription: Subscription?
    subscription = source.stream.print("p", to: lines).subscribe { _ in subscription?.unsubscribe()
    }
    source.emit(1)
    source.emit(2)
    #expect(lines.text == "p: receive subscription\np: receive value: (1)\np: receive cancel\n")
    #expect(source.observerCount == 0)
  }
}
