import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Testing

/// Subscribing and unsubscribing cost the same with thousands of subscribers as with a few.
///
/// Timings compare two measurements of one run on one thread, not a deadline: a thousand
/// owner-bound subscribes to an emitter that has 7,000 against a thousand to a new one, each the
/// fastest of three tries (so that a thread preempted by another process does not count). Before
/// the change, each subscribe read every earlier subscriber's owner: in a debug build on a loaded
/// machine, the thousand subscribes from 7,000 took 16 times the first thousand (1,266 ms
/// against 77 ms, seen once); after it, a thousand took about 1.2 ms either way.
///
/// A time, which a parallel run shares with every other test: so it runs only when
/// `TIMING_TESTS=1` is set, which `.ci/run` does in a step of its own (see
/// `FloodLatencyTimingTests`).
@Suite(
  .checksLiveResources,
  .enabled(
    if: ProcessInfo.processInfo.environment["TIMING_TESTS"] == "1",
    "compares times: run alone, with TIMING_TESTS=1"))
struct SubscribeCostTimingTests {
  static let slice = 1_000
  static let before = 7_000
  static let tries = 3

  /// Subscribes `slice` times bound to `owner` and returns the nanoseconds it took, and the
  /// subscriptions.
  static func timeSlice(of emitter: Emitter<Int>, owner: Witness) -> (UInt64, [Subscription]) {
    var subscriptions: [Subscription] = []
    subscriptions.reserveCapacity(slice)
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<slice {
      subscriptions.append(
        emitter.subscribe(owner) { owner, value in owner.received.append(value) })
    }
    return (DispatchTime.now().uptimeNanoseconds - start, subscriptions)
  }

  @Test func aThousandOwnerBoundSubscribesCostTheSameAfterSevenThousand() {
    let owner = Witness()
    var first = UInt64.max
    for _ in 0..<Self.tries {
      let emitter = Emitter<Int>()
      emitter.maxSubscribers = Int.max
      let (time, subscriptions) = Self.timeSlice(of: emitter, owner: owner)
      first = min(first, time)
      for subscription in subscriptions { subscription.unsubscribe() }
    }

    let emitter = Emitter<Int>()
    emitter.maxSubscribers = Int.max
    let earlier = (0..<Self.before).map { _ in emitter.subscribe(owner) { _, _ in } }
    var last = UInt64.max
    for _ in 0..<Self.tries {
      let (time, subscriptions) = Self.timeSlice(of: emitter, owner: owner)
      last = min(last, time)
      #expect(emitter.subscriberCount == Self.before + Self.slice)
      for subscription in subscriptions { subscription.unsubscribe() }
    }
    emitter.send(1)
    #expect(owner.received.isEmpty)  // The timed subscriptions have all ended.
    // The same work both times: three times is room for a loaded machine, and well under what
    // the old scan took.
    #expect(last <= first * 3, "nanoseconds: \(first) for the first thousand, \(last) after")
    for subscription in earlier { subscription.unsubscribe() }
    #expect(emitter.subscriberCount == 0)
  }
}

/// Subscribing and unsubscribing among many subscribers: what each leaves in place.
@Suite(.checksLiveResources) struct SubscribeCostTests {
  @Test func lostOwnersSubscriptionsAreReleasedAsSubscribersArriveWithoutASend() {
    // Nothing is sent and nothing reads the count: subscribing alone must not let the entries of
    // lost owners pile up. They go by the time the count has doubled.
    let emitter = Emitter<Int>()
    emitter.maxSubscribers = Int.max
    weak var weakCapture: Witness?
    do {
      let capture = Witness()
      weakCapture = capture
      for _ in 0..<100 {
        let owner = Witness()
        emitter.subscribe(owner) { _, _ in _ = capture }
      }
    }
    #expect(weakCapture != nil)
    let kept = (0..<200).map { _ in emitter.subscribe { _ in } }
    #expect(weakCapture == nil)
    for subscription in kept { subscription.unsubscribe() }
  }

  @Test func unsubscribingAnyOfManyKeepsTheOthersInSubscriptionOrder() {
    // Removal empties a slot and compacts later: order, delivery and release stay exact.
    let emitter = Emitter<Int>()
    emitter.maxSubscribers = Int.max
    var seen: [Int] = []
    var subscriptions = (0..<300).map { index in emitter.subscribe { _ in seen.append(index) } }
    var remaining = Array(0..<300)
    var generator = SystemRandomNumberGenerator()
    while remaining.count > 3 {
      let position = Int.random(in: 0..<remaining.count, using: &generator)
      subscriptions[remaining[position]].unsubscribe()
      remaining.remove(at: position)
      if remaining.count.isMultiple(of: 37) {
        seen = []
        emitter.send(0)
        #expect(seen == remaining)
        #expect(emitter.subscriberCount == remaining.count)
      }
    }
    let late = emitter.subscribe { _ in seen.append(-1) }
    seen = []
    emitter.send(0)
    #expect(seen == remaining + [-1])
    late.unsubscribe()
    for index in remaining { subscriptions[index].unsubscribe() }
    subscriptions = []
    #expect(emitter.subscriberCount == 0)
  }

  @Test func anUnsubscribedClosureIsReleasedAtOnceFromTheMiddleOfTheList() {
    final class Capture {}
    let emitter = Emitter<Int>()
    let before = (0..<50).map { _ in emitter.subscribe { _ in } }
    weak var weakCapture: Capture?
    let middle: Subscription
    do {
      let capture = Capture()
      weakCapture = capture
      middle = emitter.subscribe { _ in _ = capture }
    }
    let after = (0..<40).map { _ in emitter.subscribe { _ in } }
    #expect(weakCapture != nil)
    middle.unsubscribe()
    #expect(weakCapture == nil)
    for subscription in before + after { subscription.unsubscribe() }
  }

  @Test func aDisconnectRunAfterUnsubscribeAllEndsNothingElse() {
    // A slot is reused after the list was emptied: the old subscription's unsubscribe must not
    // reach the new subscriber that now sits where it sat.
    let emitter = Emitter<Int>()
    let old = emitter.subscribe { _ in }
    emitter.unsubscribeAll()
    var seen: [Int] = []
    let new = emitter.subscribe { seen.append($0) }
    old.unsubscribe()
    emitter.send(1)
    #expect(seen == [1])
    #expect(emitter.subscriberCount == 1)
    new.unsubscribe()
  }
}
