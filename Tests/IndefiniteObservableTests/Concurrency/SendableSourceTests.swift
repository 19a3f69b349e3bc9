import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Issue 26, point 2: the value-stream operators on the sources that other threads feed, bound
/// to the actor of the code that applies them.
@MainActor @Suite(.checksLiveResources) struct SendableSourceTests {
  @Test func operatorsOnASendableEmitterRunOnTheCallersActorAndSynchronouslyFromIt() async {
    let readings = SendableEmitter<Int>()
    var shown: [String] = []
    let display =
      readings
      .stream().filter { $0 >= 0 }
      .map { "\($0) °C" }
      .removeDuplicates()
      .subscribe { value in
        MainActor.assertIsolated()
        shown.append(value)
      }
    readings.send(21)
    readings.send(21)
    readings.send(-300)
    #expect(shown == ["21 °C"])  // sent from the main actor: before send returns
    await Task.detached { readings.send(22) }.value
    while shown.count < 2 { await Task.yield() }
    #expect(shown == ["21 °C", "22 °C"])
    display.unsubscribe()
    readings.send(23)
    #expect(shown == ["21 °C", "22 °C"])
  }

  @Test func operatorsAppliedInAnotherActorRunOnThatActor() async {
    let readings = SendableEmitter<Int>()
    let sums = Sums()
    await sums.start(readings)
    await Task.detached { for value in 1...100 { readings.send(value) } }.value
    while await sums.latest < 5050 { await Task.yield() }
    #expect(await sums.ranIsolated)
    await sums.stop()
  }

  @Test func aBagSubscribesToASendableEmitterAndEndsItBySource() {
    let downloads = SendableEmitter<Int>()
    let bag = SubscriptionBag()
    var finished = 0
    bag.subscribe(to: downloads) { finished += $0 }
    downloads.send(1)
    #expect(finished == 1)
    #expect(bag.count == 1)
    bag.unsubscribe(from: downloads)
    downloads.send(1)
    #expect(finished == 1)
    #expect(downloads.subscriberCount == 0)
  }

  @Test func aBagSubscribesToASendableCurrentValueAboutAnObject() {
    final class Owner {}
    let owner = Owner()
    let title = SendableCurrentValue("Inbox")
    let bag = SubscriptionBag()
    var titles: [String] = []
    bag.subscribe(to: title, about: owner) { titles.append($0) }
    title.value = "Inbox (1)"
    bag.unsubscribe(from: owner)
    title.value = "Inbox (2)"
    #expect(titles == ["Inbox", "Inbox (1)"])
  }
}

/// Issue 26, point 3: a current value that any thread may write.
@MainActor @Suite(.checksLiveResources) struct SendableCurrentValueTests {
  @Test func subscribersStartWithTheCurrentValueThenEachChange() {
    let progress = SendableCurrentValue(0)
    var shown: [Int] = []
    let subscription = progress.subscribe { shown.append($0) }
    progress.update { $0 += 10 }
    progress.value = 20
    #expect(shown == [0, 10, 20])  // written on the main actor: delivered at once
    #expect(progress.value == 20)
    subscription.unsubscribe()
  }

  @Test func concurrentUpdatesFromManyThreadsLoseNothing() async {
    let hits = SendableCurrentValue(0)
    let seen = LockedState((count: 0, highest: 0))
    let everyWrite = hits.subscribe(on: .sendingThread) { value in
      seen.withLock { $0 = ($0.count + 1, max($0.highest, value)) }
    }
    var onMain: [Int] = []
    let mainSubscription = hits.subscribe { onMain.append($0) }
    runOnThreads(8) { _ in
      for _ in 0..<1000 { hits.update { $0 += 1 } }
    }
    #expect(hits.value == 8000)
    #expect(seen.withLock { $0.count } == 8001)  // the current value, then every update
    #expect(seen.withLock { $0.highest } == 8000)
    while onMain.count < 8001 { await Task.yield() }
    #expect(onMain.max() == 8000)
    #expect(Set(onMain).count == 8001)  // each value once: no update was lost or doubled
    everyWrite.unsubscribe()
    mainSubscription.unsubscribe()
  }

  @Test func aValueWrittenFromAnotherThreadHopsToTheSubscribersActor() async {
    let status = SendableCurrentValue("idle")
    var shown: [String] = []
    let subscription = status.subscribe { value in
      MainActor.assertIsolated()
      shown.append(value)
    }
    await Task.detached { status.value = "busy" }.value
    while shown.count < 2 { await Task.yield() }
    #expect(shown == ["idle", "busy"])
    subscription.unsubscribe()
  }

  @Test func operatorsStartFromTheCurrentValue() {
    let volume = SendableCurrentValue(5)
    var shown: [String] = []
    let subscription = volume.stream().map { "volume \($0)" }.subscribe { shown.append($0) }
    volume.value = 7
    #expect(shown == ["volume 5", "volume 7"])
    subscription.unsubscribe()
  }

  @Test func skippingEqualWritesDeliversOnlyChanges() {
    let mode = SendableCurrentValue("light", skipsEqualWrites: true)
    var shown: [String] = []
    let subscription = mode.subscribe(replayingLast: false) { shown.append($0) }
    mode.value = "light"
    mode.value = "dark"
    mode.update { $0 = "dark" }
    #expect(shown == ["dark"])
    subscription.unsubscribe()
  }

  @Test func ownerBoundAndQueueSubscriptionsEndAsTheirOwnersAndBagsSay() async {
    final class Label {
      var text = ""
    }
    let title = SendableCurrentValue("a")
    var label: Label? = Label()
    title.subscribe(label!) { label, text in label.text = text }
    #expect(label?.text == "a")
    let queue = DispatchQueue(label: "titles")
    let onQueue = LockedState<[String]>([])
    let queued = title.subscribe(on: queue) { value in onQueue.withLock { $0.append(value) } }
    title.value = "b"
    #expect(label?.text == "b")
    label = nil
    queue.sync {}
    #expect(onQueue.withLock { $0 } == ["a", "b"])
    queued.unsubscribe()
    #expect(title.subscriberCount == 0)
  }
}

private actor Sums {
  var latest = 0
  var ranIsolated = true
  private var subscription: Subscription?

  func start(_ readings: SendableEmitter<Int>) {
    subscription = readings.stream().scan(0, +).subscribe { sum in
      self.assertIsolated()
      self.latest = sum
    }
  }

  func stop() {
    subscription?.unsubscribe()
  }
}
