import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@MainActor final class StreamedCounter {
  @Streamed private(set) var count = 0
  @Streamed(skipsEqualWrites: true) var mode = "light"
  var seenInSubscriber: [Int] = []

  func increment() { count += 1 }
}

@Suite(.checksLiveResources) @MainActor struct StreamedTests {
  @Test func theStreamStartsWithTheCurrentValueThenEachWriteBeforeItReturns() {
    let counter = StreamedCounter()
    counter.increment()
    var seen: [Int] = []
    let subscription = counter.$count.subscribe { seen.append($0) }
    #expect(seen == [1])
    counter.increment()
    #expect(seen == [1, 2])
    subscription.unsubscribe()
    counter.increment()
    #expect(seen == [1, 2])
    #expect(counter.count == 3)
  }

  @Test func aSubscriberReadsTheNewValueFromTheObjectUnlikePublishedsWillSet() {
    let counter = StreamedCounter()
    let subscription = counter.$count.dropFirst().subscribe { [unowned counter] _ in
      counter.seenInSubscriber.append(counter.count)
    }
    counter.increment()
    counter.increment()
    #expect(counter.seenInSubscriber == [1, 2])
    subscription.unsubscribe()
  }

  @Test func skipsEqualWritesWhenAsked() {
    let counter = StreamedCounter()
    var modes: [String] = []
    let subscription = counter.$mode.subscribe { modes.append($0) }
    counter.mode = "light"
    counter.mode = "dark"
    counter.mode = "dark"
    #expect(modes == ["light", "dark"])
    subscription.unsubscribe()
  }

  @Test func theStreamDoesNotKeepTheObject() {
    var counter: StreamedCounter? = StreamedCounter()
    weak let weakCounter = counter
    let stream = counter!.$count
    var seen: [Int] = []
    let subscription = stream.subscribe { seen.append($0) }
    counter = nil
    #expect(weakCounter == nil)
    #expect(seen == [0])
    subscription.unsubscribe()
  }

  @Test func operatorsAndBagsTakeTheStream() {
    let counter = StreamedCounter()
    let bag = SubscriptionBag()
    var labels: [String] = []
    bag.subscribe(to: counter.$count.map { "count: \($0)" }) { labels.append($0) }
    counter.increment()
    bag.unsubscribeAll()
    counter.increment()
    #expect(labels == ["count: 0", "count: 1"])
  }
}
