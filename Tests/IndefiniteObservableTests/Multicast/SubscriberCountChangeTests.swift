import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@MainActor @Suite(.checksLiveResources) struct SubscriberCountChangeTests {
  @Test func everyWayASubscriptionEndsIsReportedWithTheNewCount() {
    let counts = LockedState<[Int]>([])
    var emitter: Emitter<Int>? = Emitter<Int>()
    emitter!.onSubscriberCountChange { count in counts.withLock { $0.append(count) } }
    final class Owner {}
    var owner: Owner? = Owner()
    let plain = emitter!.subscribe { _ in }  // 1
    emitter!.subscribe(owner!) { _, _ in }  // 2
    emitter!.subscribe(limit: 1) { _ in }  // 3
    plain.unsubscribe()  // 2
    owner = nil
    emitter!.send(1)  // the limited one's last value (1), then the owner found gone (0)
    emitter!.subscribe { _ in }  // 1
    emitter!.subscribe { _ in }  // 2
    emitter!.unsubscribeAll()  // 0
    emitter!.subscribe { _ in }  // 1
    emitter = nil  // released: 0
    #expect(counts.withLock { $0 } == [1, 2, 3, 2, 1, 0, 1, 2, 0, 1, 0])
  }

  @Test func theObserverMayUnsubscribeAndIsReplacedOrRemoved() {
    let source = SendableEmitter<Int>()
    let seen = LockedState<[Int]>([])
    let kept = LockedState<SendableSubscription?>(nil)
    source.onSubscriberCountChange { count in
      seen.withLock { $0.append(count) }
      // Ends the subscription from inside the report of its arrival: no lock of ours is held.
      if count == 1 { kept.withLock { $0 }?.unsubscribe() }
    }
    let subscription = source.subscribe(on: .sendingThread) { _ in }
    kept.withLock { $0 = subscription }
    let second = source.subscribe(on: .sendingThread) { _ in }  // 2
    second.unsubscribe()  // 1: ends the first too, reported as 0
    #expect(seen.withLock { $0 } == [1, 2, 1, 0])
    source.onSubscriberCountChange(nil)
    source.subscribe(on: .sendingThread) { _ in }
    #expect(seen.withLock { $0 } == [1, 2, 1, 0])
  }

  @Test func theDebugDescriptionNamesTheSourceItsCountAndEachSubscription() {
    final class Uploader: Sendable {}
    let uploader = Uploader()
    let source = SendableEmitter<Int>()
    let queue = DispatchQueue(label: "downloads")
    let first = source.subscribe(on: .sendingThread) { _ in }
    let second = source.subscribe(uploader, on: queue, limit: 2) { _, _ in }
    #expect(
      source.debugDescription == """
        SendableEmitter<Int>: 2 subscribers
          #1
          #2, on queue downloads, owner Uploader, 2 values left
        """)
    #expect(source.readOnly.debugDescription == source.debugDescription)
    first.unsubscribe()
    second.unsubscribe()
    #expect(String(reflecting: source) == "SendableEmitter<Int>: 0 subscribers")
  }
}
