import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct GroupByTests {
  /// A message "room: text", keyed by its room.
  static func room(_ message: String) -> String {
    String(message.prefix { $0 != ":" })
  }

  @Test func passesEachNewKeyOnceAndSendsEachValueIntoItsGroup() {
    let messages = CallbackSource<String>()
    var keys: [String] = []
    var heard: [String] = []
    var groups: [Subscription] = []
    let subscription = messages.stream.groupBy(keySelector: Self.room).subscribe { room, values in
      keys.append(room)
      groups.append(values.subscribe { heard.append("\(room) got \($0)") })
    }
    for message in ["a: 1", "b: 1", "a: 2", "c: 1", "b: 2", "a: 3"] { messages.emit(message) }
    #expect(keys == ["a", "b", "c"])
    #expect(
      heard == [
        "a got a: 1", "b got b: 1", "a got a: 2", "c got c: 1", "b got b: 2", "a got a: 3",
      ])
    subscription.unsubscribe()
    for group in groups { group.unsubscribe() }
  }

  @Test func worksWithFlatMapAsRxSwiftUsersWriteIt() {
    let messages = CallbackSource<String>()
    var counts: [String] = []
    let subscription = messages.stream.groupBy(keySelector: Self.room)
      .flatMap { room, values in values.scan(0) { count, _ in count + 1 }.map { "\(room) \($0)" } }
      .subscribe { counts.append($0) }
    for message in ["a: x", "b: x", "a: y", "a: z"] { messages.emit(message) }
    #expect(counts == ["a 1", "b 1", "a 2", "a 3"])
    subscription.unsubscribe()
    #expect(messages.observerCount == 0 && messages.disconnects == 1)
  }

  @Test func aGroupSubscribedLaterReceivesOnlyLaterValues() {
    let values = CallbackSource<Int>()
    var evens: ValueObservable<Int>?
    let subscription = values.stream.groupBy { $0.isMultiple(of: 2) }.subscribe { isEven, group in
      if isEven { evens = group }
    }
    values.emit(2)
    values.emit(4)
    var seen: [Int] = []
    let late = evens?.subscribe { seen.append($0) }
    values.emit(6)
    values.emit(7)
    #expect(seen == [6])
    late?.unsubscribe()
    subscription.unsubscribe()
    evens = nil
  }

  @Test func theKeySelectorRunsOncePerValue() {
    let values = CallbackSource<Int>()
    var calls = 0
    let subscription = values.stream.groupBy { value -> Int in
      calls += 1
      return value % 3
    }.subscribe { _ in }
    for value in 0..<10 { values.emit(value) }
    #expect(calls == 10)
    subscription.unsubscribe()
  }

  @Test func eachSubscriptionConnectsOnceAndMakesItsOwnGroups() {
    let values = CallbackSource<Int>()
    let grouped = values.stream.groupBy { $0 % 2 }
    var seen: [String] = []
    var groups: [Subscription] = []
    let first = grouped.subscribe { key, group in
      seen.append("first made \(key)")
      groups.append(group.subscribe { seen.append("first \(key): \($0)") })
    }
    values.emit(1)
    let second = grouped.subscribe { key, group in
      seen.append("second made \(key)")
      groups.append(group.subscribe { seen.append("second \(key): \($0)") })
    }
    values.emit(3)
    #expect(
      seen == [
        "first made 1", "first 1: 1", "first 1: 3", "second made 1", "second 1: 3",
      ])
    #expect(values.connects == 2)
    first.unsubscribe()
    second.unsubscribe()
    #expect(values.disconnects == 2)
    for group in groups { group.unsubscribe() }
  }

  @Test func valuesSentWhileConnectingMakeTheirGroups() {
    let source = SynchronousSource(["a: 1", "b: 1", "a: 2"])
    var heard: [String] = []
    var groups: [Subscription] = []
    let subscription = source.stream.groupBy(keySelector: Self.room).subscribe { room, values in
      groups.append(values.subscribe { heard.append($0) })
    }
    #expect(heard == ["a: 1", "b: 1", "a: 2"])
    subscription.unsubscribe()
    #expect(source.connects == 1 && source.disconnects == 1)
    for group in groups { group.unsubscribe() }
  }

  /// Unsubscribing disconnects the upstream first, then ends the groups' subscriptions, which
  /// let go of their subscribers; a group's own unsubscribe then does nothing more.
  @Test func unsubscribeDisconnectsTheUpstreamThenEndsEveryGroup() {
    let messages = CallbackSource<String>()
    var order: [String] = []
    let upstream = ValueObservable<String> { observer in
      let subscription = messages.stream.subscribe(observer.next)
      return {
        order.append("upstream")
        subscription.unsubscribe()
      }
    }
    weak var groupSubscriber: Witness?
    var heard: [String] = []
    var groups: [Subscription] = []
    var kept: [ValueObservable<String>] = []  // as a user may keep a group's stream
    let subscription = upstream.groupBy(keySelector: Self.room).subscribe { room, values in
      kept.append(values)
      let witness = Witness()
      groupSubscriber = witness
      groups.append(
        values.handleEvents(receiveCancel: { order.append("\(room) unsubscribed") })
          .subscribe { [witness] in
            _ = witness
            heard.append($0)
          })
    }
    messages.emit("a: 1")
    #expect(groupSubscriber != nil)
    subscription.unsubscribe()
    #expect(order == ["upstream"])
    #expect(groupSubscriber == nil)
    messages.emit("a: 2")
    #expect(heard == ["a: 1"])
    for group in groups { group.unsubscribe() }
    #expect(order == ["upstream", "a unsubscribed"])
    #expect(messages.observerCount == 0)
    kept = []
  }

  @Test func unsubscribingFromInsideAGroupsDeliveryEndsEverything() {
    let messages = CallbackSource<String>()
    var heard: [String] = []
    var subscription: Subscription?
    var groups: [Subscription] = []
    subscription = messages.stream.groupBy(keySelector: Self.room).subscribe { _, values in
      groups.append(
        values.subscribe { message in
          heard.append(message)
          if message == "b: 1" { subscription?.unsubscribe() }
        })
    }
    for message in ["a: 1", "b: 1", "a: 2", "c: 1"] { messages.emit(message) }
    #expect(heard == ["a: 1", "b: 1"])
    #expect(messages.observerCount == 0 && messages.disconnects == 1)
    for group in groups { group.unsubscribe() }
  }

  /// The value that makes a group is not sent into it when the subscription ends while its pair
  /// is being passed on, and what subscribes to the group in that delivery, even after the end,
  /// is ended with it.
  @Test func unsubscribingFromInsideThePairsDeliveryEndsTheNewGroupBeforeItsFirstValue() {
    let messages = CallbackSource<String>()
    var heard: [String] = []
    var subscription: Subscription?
    var groups: [Subscription] = []
    var kept: [ValueObservable<String>] = []  // as a user may keep a group's stream
    weak var lastSubscriber: Witness?
    subscription = messages.stream.groupBy(keySelector: Self.room).subscribe { room, values in
      kept.append(values)
      // Ends the subscription first, then subscribes to the group it has just passed on.
      if room == "b" { subscription?.unsubscribe() }
      let witness = Witness()
      lastSubscriber = witness
      groups.append(
        values.subscribe { [witness] in
          _ = witness
          heard.append($0)
        })
    }
    for message in ["a: 1", "b: 1", "a: 2"] { messages.emit(message) }
    #expect(heard == ["a: 1"])
    #expect(lastSubscriber == nil)
    #expect(messages.observerCount == 0)
    for group in groups { group.unsubscribe() }
    kept = []
  }

  /// One thread delivers values of new keys while this one unsubscribes: every group made is
  /// ended, and lets go of its subscriber, whichever thread wins.
  @Test func noGroupStaysSubscribedAfterUnsubscribeOnAnotherThread() {
    for _ in 0..<100 {
      let values = ThreadSafeSource<Int>()
      let made = Counter()
      let released = Counter()
      // Kept, as a user may keep a group's stream: only ending the groups lets go of their
      // subscribers.
      let kept = LockedState<[ValueObservable<Int>]>([])
      let subscription = values.stream.groupBy { $0 }.subscribe { _, group in
        kept.withLock { $0.append(group) }
        let tracker = Tracker(made: made, released: released)
        _ = group.subscribe { _ in _ = tracker }
      }
      let emitting = startThread {
        for value in 0..<20 { values.emit(value) }
      }
      subscription.unsubscribe()
      emitting.wait()
      #expect(values.observerCount == 0)
      #expect(values.connects == 1 && values.disconnects == 1)
      #expect(made.value == released.value)
      withExtendedLifetime(kept) {}
    }
  }
}

/// Counts itself made and released: a group subscriber that lets a test see it let go.
private final class Tracker {
  private let released: Counter

  init(made: Counter, released: Counter) {
    self.released = released
    made.increment()
  }

  deinit { released.increment() }
}
