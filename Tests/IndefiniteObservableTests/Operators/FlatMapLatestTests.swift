import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct FlatMapLatestTests {
  @Test func followsTheStreamOfTheLatestValue() {
    let queries = CallbackSource<String>()
    let results = ["sw": CallbackSource<String>(), "swift": CallbackSource<String>()]
    var seen: [String] = []
    let subscription = queries.stream.flatMapLatest { results[$0]!.stream }
      .subscribe { seen.append($0) }
    queries.emit("sw")
    results["sw"]!.emit("swap")
    queries.emit("swift")
    results["sw"]!.emit("swim")
    results["swift"]!.emit("swift-nio")
    #expect(seen == ["swap", "swift-nio"])
    #expect(results["sw"]!.observerCount == 0)
    subscription.unsubscribe()
    #expect(results["swift"]!.observerCount == 0)
    #expect(queries.observerCount == 0)
  }

  @Test func transformRunsOncePerValueAndSubscription() {
    let values = CallbackSource<Int>()
    var calls = 0
    let streams = values.stream.flatMapLatest { value in
      calls += 1
      return SynchronousSource([value]).stream
    }
    var first: [Int] = []
    var second: [Int] = []
    let early = streams.subscribe { first.append($0) }
    let late = streams.subscribe { second.append($0) }
    values.emit(1)
    values.emit(2)
    #expect(calls == 4)
    #expect(first == [1, 2])
    #expect(second == [1, 2])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test func unsubscribeDisconnectsTheLatestStreamBeforeTheOuterOne() {
    let queries = CallbackSource<String>()
    var order: [String] = []
    let outer = ValueObservable<String> { observer in
      let upstream = queries.stream.subscribe(observer.next)
      return {
        order.append("outer, with \(queries.observerCount) observer")
        upstream.unsubscribe()
      }
    }
    let subscription = outer.flatMapLatest { query in
      ValueObservable<String> { _ in { order.append("inner \(query)") } }
    }.subscribe { _ in }
    queries.emit("sw")
    queries.emit("swift")
    subscription.unsubscribe()
    #expect(order == ["inner sw", "inner swift", "outer, with 1 observer"])
  }
}
