import Dispatch
import IndefiniteObservable
import Multicast
import Testing

extension EmitterTests {
  /// What an emitter keeps alive, and for how long, watched through weak references.
  @Suite struct Memory {
    @Test func subscribersRemovedDuringASendAreReleasedWhenTheSendEnds() {
      // A send calls its subscribers from a snapshot of the list, which keeps each of them
      // alive until the send returns, even when a callback removes them from the list.
      final class Witness {}
      let emitter = Emitter<Int>()
      weak var weakWitness: Witness?
      var aliveDuringTheSend: [Bool] = []
      emitter.subscribe { _ in
        emitter.unsubscribeAll()
        aliveDuringTheSend.append(weakWitness != nil)
      }
      do {
        let witness = Witness()
        weakWitness = witness
        emitter.subscribe { _ in _ = witness }
      }
      emitter.send(1)
      #expect(aliveDuringTheSend == [true])
      #expect(weakWitness == nil)
      #expect(emitter.subscriberCount == 0)
    }

    @Test func ownerBoundSubscriptionDoesNotKeepItsOwner() {
      let emitter = Emitter<Int>()
      weak var weakOwner: Witness?
      do {
        let owner = Witness()
        weakOwner = owner
        emitter.subscribe(owner) { owner, value in owner.received.append(value) }
        emitter.send(1)
        #expect(owner.received == [1])
      }
      #expect(weakOwner == nil)
    }

    @Test func ownerBoundSubscriptionEndsWhenItsOwnerIsDeallocated() {
      let emitter = Emitter<Int>()
      let calls = Counter()
      do {
        let owner = Witness()
        emitter.subscribe(owner) { _, _ in calls.increment() }
        emitter.send(1)
        #expect(emitter.subscriberCount == 1)
      }
      #expect(emitter.subscriberCount == 0)
      emitter.send(2)
      #expect(calls.value == 1)
    }

    @Test func aLostOwnersSubscriptionIsRemovedByTheNextSend() {
      let emitter = Emitter<Int>()
      weak var weakCapture: Witness?
      do {
        let owner = Witness()
        let capture = Witness()
        weakCapture = capture
        emitter.subscribe(owner) { _, _ in _ = capture }
      }
      #expect(weakCapture != nil)  // Not yet noticed: the closure is still in the list.
      emitter.send(1)
      #expect(weakCapture == nil)
    }

    @Test func unsubscribeReleasesTheClosure() {
      let emitter = Emitter<Int>()
      weak var weakCapture: Witness?
      let subscription: Subscription
      do {
        let capture = Witness()
        weakCapture = capture
        subscription = emitter.subscribe { capture.received.append($0) }
      }
      #expect(weakCapture != nil)
      subscription.unsubscribe()
      #expect(weakCapture == nil)
    }

    @Test func reachingTheLimitReleasesTheClosureThoughTheSubscriptionIsKept() {
      let emitter = Emitter<Int>()
      weak var weakCapture: Witness?
      var subscription: Subscription?
      do {
        let capture = Witness()
        weakCapture = capture
        subscription = emitter.subscribe(limit: 1) { capture.received.append($0) }
      }
      emitter.send(1)
      #expect(weakCapture == nil)
      subscription?.unsubscribe()  // Harmless after the end.
    }

    @Test func unsubscribeAllReleasesEveryClosure() {
      let emitter = Emitter<Int>()
      final class Token: Sendable {}
      weak var weakCapture: Witness?
      weak var weakToken: Token?
      do {
        let capture = Witness()
        let token = Token()
        weakCapture = capture
        weakToken = token
        emitter.subscribe { capture.received.append($0) }
        emitter.subscribe(on: DispatchQueue(label: "memory")) { _ in _ = token }
      }
      emitter.unsubscribeAll()
      #expect(weakCapture == nil)
      #expect(weakToken == nil)
    }

    @Test func aSubscriptionDoesNotKeepTheEmitter() {
      weak var weakEmitter: Emitter<Int>?
      let subscription: Subscription
      do {
        let emitter = Emitter<Int>()
        weakEmitter = emitter
        subscription = emitter.subscribe { _ in }
      }
      #expect(weakEmitter == nil)
      subscription.unsubscribe()  // Does nothing once the emitter is gone.
    }

    @Test func theEmitterReleasesItsSubscribersWhenDeallocated() {
      weak var weakCapture: Witness?
      do {
        let emitter = Emitter<Int>()
        let capture = Witness()
        weakCapture = capture
        emitter.subscribe { capture.received.append($0) }
        emitter.send(1)
      }
      #expect(weakCapture == nil)
    }

    @Test func aSentValueIsReleasedWhenTheNextOneReplacesIt() {
      let emitter = Emitter<Witness>()
      weak var weakFirst: Witness?
      do {
        let first = Witness()
        weakFirst = first
        emitter.send(first)
      }
      #expect(weakFirst != nil)  // Kept as the last value, for replay.
      emitter.send(Witness())
      #expect(weakFirst == nil)
    }

    @Test func anOperatorChainOnAnEmitterIsReleasedWhenUnsubscribed() {
      let emitter = Emitter<Int>()
      weak var weakCapture: Witness?
      let subscription: Subscription
      do {
        let capture = Witness()
        weakCapture = capture
        subscription = emitter.map { $0 * 2 }.subscribe { capture.received.append($0) }
      }
      emitter.send(1)
      #expect(weakCapture?.received == [2])
      subscription.unsubscribe()
      #expect(weakCapture == nil)
    }
  }
}
