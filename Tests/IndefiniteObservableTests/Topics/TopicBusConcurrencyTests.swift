import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Many threads publishing, subscribing and unsubscribing on one bus at once.
@Suite(.checksLiveResources) struct TopicBusConcurrencyTests {
  private static let topic = Topic<Int>("load")
  /// Where the handlers run: handlers of code that is not on an actor take a queue.
  private static let delivery = DispatchQueue(label: "TopicBusConcurrencyTests")
  // Five publishers, two churning subscribers and one owner thread: eight threads at once.
  private static let publishers = 5
  private static let perPublisher = 4000

  /// Publisher `p` publishes `p * perPublisher + i` for i in 0..<perPublisher; churn threads
  /// publish negative markers after each of their unsubscribes.
  @Test func stableSubscribersReceiveEveryEventOnceInEachPublishersOrder() {
    let bus = TopicBus()
    let stable = (0..<3).map { _ in Recorder<Int>() }
    for recorder in stable {
      bus.source(for: Self.topic).subscribe(on: Self.delivery) { recorder.record($0.payload) }
    }
    let violations = Recorder<String>()
    let group = DispatchGroup()

    for p in 0..<Self.publishers {
      DispatchQueue.global().async(group: group) {
        for i in 0..<Self.perPublisher { bus.publish(Self.topic, p * Self.perPublisher + i) }
      }
    }
    // Churn: subscribe, unsubscribe, then publish a marker that the removed handler must never
    // see: once unsubscribe returns, no new delivery may begin.
    for c in 0..<2 {
      DispatchQueue.global().async(group: group) {
        for round in 0..<1000 {
          let marker = -(c * 1000 + round + 1)
          let subscription = bus.source(for: Self.topic).subscribe(on: Self.delivery) { event in
            if event.payload == marker { violations.record("delivered after unsubscribe") }
          }
          subscription.unsubscribe()
          bus.publish(Self.topic, marker)
        }
      }
    }
    // Owners come and go, ended with unsubscribeAll and unsubscribe(_:from:).
    DispatchQueue.global().async(group: group) {
      for round in 0..<1000 {
        let owner = Owner()
        let marker = -(100_000 + round)
        bus.source(for: Self.topic).subscribe(owner, on: Self.delivery) { _, event in
          if event.payload == marker { violations.record("owner delivered after unsubscribeAll") }
        }
        bus.source(for: Self.topic).subscribe(owner, on: Self.delivery, limit: 1) { _, _ in }
        if round.isMultiple(of: 2) {
          bus.unsubscribe(owner)
        } else {
          bus.unsubscribe(owner, from: Self.topic)
        }
        bus.publish(Self.topic, marker)
      }
    }

    #expect(group.wait(timeout: .now() + 60) == .success)
    Self.delivery.sync {}  // every delivery enqueued so far has run
    #expect(violations.values.isEmpty)
    let expected = Set(0..<(Self.publishers * Self.perPublisher))
    for recorder in stable {
      let received = recorder.values.filter { $0 >= 0 }
      #expect(received.count == expected.count)
      #expect(Set(received) == expected)
      for p in 0..<Self.publishers {
        let fromP = received.filter { $0 / Self.perPublisher == p }
        #expect(fromP == fromP.sorted())
      }
      #expect(recorder.values.filter { $0 < 0 }.count == 2 * 1000 + 1000)
    }
  }

  @Test func onceSubscribersAddedDuringConcurrentPublishesReceiveAtMostOneEvent() {
    let bus = TopicBus()
    let counts = (0..<200).map { _ in Recorder<Int>() }
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      for i in 0..<2000 { bus.publish(Self.topic, i) }
    }
    DispatchQueue.global().async(group: group) {
      for i in 0..<2000 { bus.publish(Self.topic, -i) }
    }
    DispatchQueue.global().async(group: group) {
      for recorder in counts {
        bus.source(for: Self.topic).subscribe(on: Self.delivery, limit: 1) {
          recorder.record($0.payload)
        }
      }
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    // Publish once more so that every once-subscriber still waiting gets its event.
    bus.publish(Self.topic, 0)
    Self.delivery.sync {}
    #expect(counts.allSatisfy { $0.count == 1 })
  }

  @Test func concurrentUnsubscribesOfOneSubscriptionRemoveItOnce() {
    for _ in 0..<100 {
      let bus = TopicBus()
      let seen = Recorder<Int>()
      let subscription = bus.source(for: Self.topic).subscribe(on: Self.delivery) {
        seen.record($0.payload)
      }
      let other = Recorder<Int>()
      bus.source(for: Self.topic).subscribe(on: Self.delivery) { other.record($0.payload) }
      DispatchQueue.concurrentPerform(iterations: 4) { _ in subscription.unsubscribe() }
      bus.publish(Self.topic, 1)
      Self.delivery.sync {}
      #expect(seen.values.isEmpty)
      #expect(other.values == [1])
    }
  }
}

private final class Owner: Sendable {}
