import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct JustTests {
  @Test func deliversItsValueToEachSubscriberBeforeSubscribeReturns() {
    let just = Just("hello")
    var seen: [String] = []
    let first = just.subscribe { seen.append("first \($0)") }
    let second = just.map { $0.count }.subscribe { seen.append("second \($0)") }
    #expect(seen == ["first hello", "second 5"])
    #expect(just.output == "hello")
    first.unsubscribe()
    second.unsubscribe()
  }

  @Test func unsubscribingFromInsideTheDeliveryIsHarmless() {
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = Just(1).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    subscription?.unsubscribe()
    #expect(seen == [1])
  }

  @Test func worksWhereAStreamIsExpected() {
    let queries = CallbackSource<String>()
    var seen: [String] = []
    let subscription = queries.stream.flatMapLatest { query -> ValueObservable<String> in
      Just("results for \(query)")
    }
    .merge(with: Just("ready")).subscribe { seen.append($0) }
    queries.emit("swift")
    #expect(seen == ["ready", "results for swift"])
    subscription.unsubscribe()
  }

  @Test func keepsItsValueAsLongAsItLives() {
    weak var kept: Witness?
    var just: Just<Witness>? = Just(Witness())
    kept = just?.output
    #expect(kept != nil)
    just = nil
    #expect(kept == nil)
  }
}
