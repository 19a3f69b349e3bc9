import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

private let ping = Notification.Name("NotificationsTests.ping")
private let pong = Notification.Name("NotificationsTests.pong")

/// Each test posts on a center of its own, so tests can run in parallel.
@MainActor @Suite(.checksLiveResources) struct NotificationsTests {
  @Test func postedNotificationsArriveBeforePostReturns() async throws {
    let center = NotificationCenter()
    var names: [String] = []
    let subscription = Notifications.named(ping, center: center).subscribe {
      names.append($0.rawValue)
    }
    center.post(name: ping, object: nil)
    #expect(names == [ping.rawValue])
    center.post(name: pong, object: nil)
    #expect(names == [ping.rawValue])
    subscription.unsubscribe()
  }

  @Test func aTransformTakesWhatItNeedsFromEachNotification() async throws {
    let center = NotificationCenter()
    let sender = NSObject()
    var counts: [Int] = []
    let subscription = Notifications.named(ping, center: center) { $0.userInfo?["count"] as? Int }
      .subscribe { counts.append($0) }
    center.post(name: ping, object: sender, userInfo: ["count": 3])
    center.post(name: ping, object: nil, userInfo: ["other": 1])
    #expect(counts == [3])
    subscription.unsubscribe()
  }

  @Test func anObjectFilterDeliversOnlyThatObjectsNotifications() async throws {
    let center = NotificationCenter()
    let mine = NSObject()
    let other = NSObject()
    let mineID = ObjectIdentifier(mine)
    var senders: [String] = []
    let subscription = Notifications.named(ping, object: mine, center: center) {
      $0.object.map { ObjectIdentifier($0 as AnyObject) } == mineID ? "mine" : "other"
    }.subscribe { senders.append($0) }
    center.post(name: ping, object: mine)
    center.post(name: ping, object: other)
    center.post(name: ping, object: nil)
    #expect(senders == ["mine"])
    subscription.unsubscribe()
  }

  @Test func unsubscribeRemovesTheObserverAndReleasesTheHandler() async throws {
    let center = NotificationCenter()
    final class Captured {}
    weak var weakCaptured: Captured?
    var count = 0
    let subscription: SendableSubscription
    do {
      let captured = Captured()
      weakCaptured = captured
      subscription = Notifications.named(ping, center: center).subscribe { _ in
        _ = captured
        count += 1
      }
    }
    center.post(name: ping, object: nil)
    subscription.unsubscribe()
    center.post(name: ping, object: nil)
    #expect(count == 1)
    #expect(weakCaptured == nil)
  }

  @Test func droppingTheSubscriptionKeepsDelivering() async throws {
    let center = NotificationCenter()
    var count = 0
    do {
      _ = Notifications.named(ping, center: center).subscribe { _ in count += 1 }
    }
    center.post(name: ping, object: nil)
    #expect(count == 1)
  }

  @Test func theStreamKeepsTheObjectWeakly() async throws {
    let center = NotificationCenter()
    weak var weakObject: NSObject?
    var count = 0
    let stream: Producer<Notification.Name>
    let subscription: SendableSubscription
    do {
      let object = NSObject()
      weakObject = object
      stream = Notifications.named(ping, object: object, center: center)
      subscription = stream.subscribe { _ in count += 1 }
      center.post(name: ping, object: object)
    }
    #expect(weakObject == nil)
    // New objects, possibly at the dead object's address, never match.
    for _ in 0..<100 { center.post(name: ping, object: NSObject()) }
    center.post(name: ping, object: nil)
    // A subscription made after the object died receives nothing either.
    let late = stream.subscribe { _ in count += 100 }
    center.post(name: ping, object: nil)
    #expect(count == 1)
    subscription.unsubscribe()
    late.unsubscribe()
  }

  @Test func noDeliveryBeginsAfterUnsubscribeWhileOtherThreadsPost() async throws {
    let center = NotificationCenter()
    for _ in 0..<20 {
      let delivered = Recorder<Int>()
      let afterUnsubscribe = Recorder<Int>()
      let gate = Gate()
      let subscription = Notifications.named(ping, center: center) { $0.userInfo?["n"] as? Int }
        .subscribe { n in
          if gate.isClosed { afterUnsubscribe.record(n) }
          delivered.record(n)
        }
      let group = DispatchGroup()
      for p in 0..<3 {
        DispatchQueue.global().async(group: group) {
          for i in 0..<200 { center.post(name: ping, object: nil, userInfo: ["n": p * 1000 + i]) }
        }
      }
      _ = await delivered.arrival(ofCount: 50)
      subscription.unsubscribe()
      gate.close()
      // Posted after unsubscribe returned, from this thread: must never arrive.
      center.post(name: ping, object: nil, userInfo: ["n": -1])
      #expect(group.wait(timeout: .now() + 30) == .success)
      #expect(!delivered.values.contains(-1))
      // Deliveries run on the main actor only, where unsubscribe ran: none after it.
      #expect(afterUnsubscribe.values.isEmpty)
    }
  }

  @Test func mappedToSendableValuesTheStreamCanBeIteratedAsynchronously() async {
    let center = NotificationCenter()
    let counts = Notifications.named(ping, center: center) { $0.userInfo?["count"] as? Int }
    let seen = Recorder<Int>()
    let consumer = Task {
      for await count in counts.stream().values {
        seen.record(count)
        if seen.values.count == 3 { break }
      }
    }
    // Post until the consumer, which subscribes when its loop starts, has seen three values.
    var n = 0
    while seen.values.count < 3 && n < 10_000 {
      n += 1
      center.post(name: ping, object: nil, userInfo: ["count": n])
      try? await Task.sleep(for: .milliseconds(1))
    }
    await consumer.value
    #expect(seen.values.count == 3)
    #expect(seen.values == seen.values.sorted())
  }
}

extension NotificationsTests {
  @Test func notificationsPostedOnOtherThreadsAreDeliveredOnTheMainActorInOrder() async throws {
    let center = NotificationCenter()
    var seen: [Int] = []  // a main-actor variable, mutated with no lock
    let subscription = Notifications.named(ping, center: center) { $0.userInfo?["n"] as? Int }
      .subscribe { n in
        MainActor.assertIsolated()
        seen.append(n)
      }
    DispatchQueue.global().async {
      for n in 0..<100 { center.post(name: ping, object: nil, userInfo: ["n": n]) }
    }
    #expect(await eventually { seen.count == 100 })
    #expect(seen == Array(0..<100))
    subscription.unsubscribe()
  }
}

/// A flag one thread closes and others read.
private final class Gate: @unchecked Sendable {
  // `closed` is guarded by `lock`.
  private let lock = NSLock()
  private var closed = false
  var isClosed: Bool { lock.withLock { closed } }
  func close() { lock.withLock { closed = true } }
}
