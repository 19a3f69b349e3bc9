import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The read-only view of every source, `source.readOnly` (issue 34): the source's subscribing
/// spellings with its defaults, across isolations for the sendable sources. What it must not
/// have (`send`, `unsubscribeAll()`, ...) is checked by the compile-fail block of
/// Guides/Migrating.md and by `.ci/check-parity`. These tests did not compile before the view.
@MainActor
@Suite struct ReadOnlySourceTests {
  final class Badge {
    var count = 0
  }

  @Test func aViewOfAnEmitterHasItsSubscribeFamilyAndCounters() {
    let messages = Emitter<String>()
    let view = messages.readOnly
    var seen: [String] = []
    let badge = Badge()
    let plain = view.subscribe { seen.append($0) }
    view.subscribe(badge) { badge, _ in badge.count += 1 }
    messages.send("a")
    let replayed = view.subscribe(replayingLast: true, limit: 1) { seen.append("replayed " + $0) }
    messages.send("b")
    #expect(seen == ["a", "replayed a", "b"])
    #expect(badge.count == 2)
    #expect(view.subscriberCount == 2)
    #expect(view.sendCount == 2)
    #expect(!type(of: view).replaysLastByDefault)
    plain.unsubscribe()
    replayed.unsubscribe()
    view.unsubscribe(badge)  // a subscriber bound to an owner ends its own through the view
    messages.send("c")
    #expect(badge.count == 2)
    #expect(view.subscriberCount == 0)
  }

  @Test func aViewOfACurrentValueStartsWithTheCurrentValueAsTheSourceDoes() {
    let level = CurrentValue(1)
    let view = level.readOnly
    var seen: [Int] = []
    let subscription = view.subscribe { seen.append($0) }
    level.value = 2
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }

  @Test func aViewOfASendableEmitterIsUsedFromAnotherThreadAndHasTheOperators() async {
    let progress = SendableEmitter<Double>()
    let view = progress.readOnly
    let fromElsewhere = LockedState<[Double]>([])
    let onQueue = await Task.detached {
      view.subscribe(on: .sendingThread) { value in fromElsewhere.withLock { $0.append(value) } }
    }.value
    var percents: [Int] = []  // main-actor state
    let mapped = view.stream().map { Int($0 * 100) }.subscribe { percents.append($0) }
    progress.send(0.5)
    #expect(percents == [50])
    #expect(fromElsewhere.withLock { $0 } == [0.5])
    #expect(view.subscriberCount == 2)
    onQueue.unsubscribe()
    mapped.unsubscribe()
    #expect(progress.subscriberCount == 0)
  }

  @Test func aViewOfASendableCurrentValueIsASendableSourceWithTheSameDefaults() {
    let level = SendableCurrentValue(3)
    let view: any SendableSource<Int> = level.readOnly
    var seen: [Int] = []
    let subscription = view.stream().subscribe { seen.append($0) }
    level.value = 4
    #expect(seen == [3, 4])
    #expect(type(of: view).replaysLastByDefault)
    subscription.unsubscribe()
  }

  @Test func aBagKnowsASubscriptionMadeThroughAViewByTheViewsSource() {
    let downloads = SendableEmitter<Int>()
    let bag = SubscriptionBag()
    var finished = 0
    bag.subscribe(to: downloads.readOnly) { finished += $0 }
    downloads.send(1)
    #expect(finished == 1)
    bag.unsubscribe(from: downloads)
    downloads.send(1)
    #expect(finished == 1)
    #expect(downloads.subscriberCount == 0)
  }

  @Test func aViewKeepsItsSourceAliveAndNoLonger() {
    weak var gone: Emitter<Int>?
    var view: ReadOnlySource<Emitter<Int>>?
    do {
      let source = Emitter<Int>()
      gone = source
      view = source.readOnly
    }
    #expect(gone != nil)
    view = nil
    #expect(gone == nil)
    _ = view
  }
}
