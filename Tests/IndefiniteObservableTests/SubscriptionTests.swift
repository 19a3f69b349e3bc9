import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct SubscriptionTests {
  @Test func unsubscribeCallsDisconnectExactlyOnce() {
    var calls = 0
    let subscription = Subscription { calls += 1 }
    #expect(!subscription.isUnsubscribed)
    subscription.unsubscribe()
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(calls == 1)
    #expect(subscription.isUnsubscribed)
  }

  @Test func concurrentUnsubscribesCallDisconnectOnce() {
    final class Counter: @unchecked Sendable {
      // Guarded by `lock`.
      let lock = DispatchSemaphore(value: 1)
      var value = 0
      func increment() {
        lock.wait()
        value += 1
        lock.signal()
      }
    }
    for _ in 0..<200 {
      let counter = Counter()
      let subscription = SendableSubscription { counter.increment() }
      DispatchQueue.concurrentPerform(iterations: 8) { _ in subscription.unsubscribe() }
      #expect(counter.value == 1)
    }
  }

  @Test func droppingASubscriptionDoesNotUnsubscribe() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    do {
      _ = source.stream.subscribe { seen.append($0) }
    }
    source.emit(1)
    #expect(seen == [1])
    #expect(source.disconnects == 0)
  }

  @Test func unsubscribeReleasesTheDisconnectChain() {
    final class Resource {}
    weak var weakResource: Resource?
    let subscription: Subscription
    do {
      let resource = Resource()
      weakResource = resource
      subscription = Subscription { _ = resource }
    }
    #expect(weakResource != nil)
    subscription.unsubscribe()
    #expect(weakResource == nil)
  }

  @Test func disconnectMayUnsubscribeItsOwnSubscription() {
    var calls = 0
    var subscription: Subscription?
    subscription = Subscription {
      calls += 1
      subscription?.unsubscribe()
    }
    subscription?.unsubscribe()
    #expect(calls == 1)
  }

  @Test func disconnectsMayUnsubscribeOtherSubscriptions() {
    // Subscriptions share a small set of locks, so among this many some share one: a disconnect
    // that ran under its subscription's lock would deadlock on the next one's.
    var calls = 0
    var subscriptions: [Subscription] = []
    for index in 0..<256 {
      subscriptions.append(
        Subscription {
          calls += 1
          if index + 1 < subscriptions.count { subscriptions[index + 1].unsubscribe() }
        })
    }
    subscriptions[0].unsubscribe()
    #expect(calls == 256)
    #expect(subscriptions.allSatisfy { $0.isUnsubscribed })
  }

  @Test func noopDisconnectIsADisconnect() {
    let disconnect: Disconnect = noopDisconnect
    Subscription(disconnect).unsubscribe()
  }

  @Test func subscriptionsAreEqualAndHashedByIdentity() {
    let first = Subscription(noopDisconnect)
    let second = Subscription(noopDisconnect)
    let alsoFirst = first
    #expect(first == alsoFirst)
    #expect(first != second)
    #expect(first.hashValue == alsoFirst.hashValue)
    #expect(Set([first, second, alsoFirst]).count == 2)
  }

  // Why `store(in: &set)` is refused (its compile-fail example is in Guides/Migrating.md): a
  // set of subscriptions that is released ends none of them, where Combine's
  // `Set<AnyCancellable>` would cancel them all.
  @Test func aReleasedSetOfSubscriptionsEndsNoneOfThem() {
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    var subscriptions: Set<Subscription>? = [emitter.subscribe { seen.append($0) }]
    #expect(subscriptions?.count == 1)
    subscriptions = nil
    emitter.send(1)
    #expect(seen == [1])
    #expect(emitter.subscriberCount == 1)
    emitter.unsubscribeAll()
  }
}
