import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

private let ping = Notification.Name("NotificationsSendingThreadTests.ping")
private let pong = Notification.Name("NotificationsSendingThreadTests.pong")

/// `Notifications.named(...)` with `.sendingThread`: the subscriber runs on the posting thread,
/// inside `post`. Each test posts on a center of its own.
@Suite(.checksLiveResources) struct NotificationsSendingThreadTests {
  /// Posted on a thread that is not the main thread, while the main actor is held: each value
  /// is there when `post` returns, delivered on the posting thread.
  @Test func aPostedNotificationReachesTheSubscriberOnThePostingThreadBeforePostReturns() async {
    let center = NotificationCenter()
    let names = Recorder<Notification.Name>()
    let onMainActor = Recorder<Bool>()
    let subscription = Notifications.named(ping, center: center).subscribe(on: .sendingThread) {
      name in
      onMainActor.record(MainQueue.isCurrent)
      names.record(name)
    }
    let seenWhenPostReturned = Recorder<[Notification.Name]>()
    await MainActor.run {
      let poster = Thread {
        center.post(name: ping, object: nil)
        center.post(name: pong, object: nil)
        seenWhenPostReturned.record(names.values)
      }
      poster.start()
      #expect(seenWhenPostReturned.wait(forCount: 1, seconds: 60))
    }
    #expect(seenWhenPostReturned.values == [[ping]])
    #expect(onMainActor.values == [false])
    subscription.unsubscribe()
  }

  @Test func aTransformTakesWhatItNeedsAndAnObjectFilterKeepsOnlyThatObjects() {
    let center = NotificationCenter()
    let mine = NSObject()
    let counts = Recorder<Int>()
    let subscription = Notifications.named(ping, object: mine, center: center) {
      $0.userInfo?["count"] as? Int
    }.subscribe(on: .sendingThread, counts.record)
    center.post(name: ping, object: mine, userInfo: ["count": 3])
    center.post(name: ping, object: NSObject(), userInfo: ["count": 4])
    center.post(name: ping, object: mine, userInfo: ["other": 1])
    center.post(name: ping, object: mine, userInfo: ["count": 5])
    #expect(counts.values == [3, 5])
    subscription.unsubscribe()
    center.post(name: ping, object: mine, userInfo: ["count": 6])
    #expect(counts.values == [3, 5])
  }

  @Test func aSubscriberMayUnsubscribeItselfAndHearsNothingAfter() {
    let center = NotificationCenter()
    let names = Recorder<Notification.Name>()
    let own = LockedState<SendableSubscription?>(nil)
    let subscription = Notifications.named(ping, center: center).subscribe(on: .sendingThread) {
      name in
      names.record(name)
      own.withLock { $0 }?.unsubscribe()
    }
    own.withLock { $0 = subscription }
    for _ in 0..<3 { center.post(name: ping, object: nil) }
    #expect(names.values == [ping])
    #expect(subscription.isUnsubscribed)
  }
}
