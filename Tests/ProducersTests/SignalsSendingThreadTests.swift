import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `Signals.deliveries(of:on:_:)` with `.sendingThread`: the subscriber runs on the queue that
/// reads the signal pipe. In `SignalsTests`' suite (an extension), which is serialized: signal
/// dispositions are process-wide.
extension SignalsTests {
  @Test func aSendingThreadSubscriberRunsOnTheReadingQueueWhileTheMainActorIsBlocked() throws {
    try withHarmlessHandlers(SIGUSR1) {
      let recorder = Recorder<UnixSignal>()
      let onMainActor = Recorder<Bool>()
      let subscription = try Signals.deliveries(of: SIGUSR1).subscribe(on: .sendingThread) {
        signal in
        onMainActor.record(MainQueue.isCurrent)
        recorder.record(signal)
      }
      // This test holds the main actor while it waits: a subscriber that hopped to it could
      // not run, and the wait would time out.
      raiseSynchronously(SIGUSR1)
      #expect(recorder.wait(forCount: 1, seconds: 60))
      subscription.unsubscribe()
      #expect(recorder.values.map(\.rawValue) == [SIGUSR1])
      #expect(onMainActor.values == [false])
    }
  }

  /// Demultiplexed by number on the reading queue too: a subscriber of SIGUSR2 is never called
  /// for SIGUSR1, and one subscription to both receives them in the order they arrived.
  @Test func aSignalReachesOnlyItsOwnSendingThreadSubscribers() throws {
    try withHarmlessHandlers(SIGUSR1, SIGUSR2) {
      let user1 = Recorder<UnixSignal>()
      let user2 = Recorder<UnixSignal>()
      let both = Recorder<UnixSignal>()
      let subscriptions = [
        try Signals.deliveries(of: SIGUSR1).subscribe(on: .sendingThread, user1.record),
        try Signals.deliveries(of: [SIGUSR2]).subscribe(on: .sendingThread, user2.record),
        try Signals.deliveries(of: SIGUSR2, SIGUSR1).subscribe(on: .sendingThread, both.record),
      ]
      let raised = [SIGUSR1, SIGUSR1, SIGUSR2, SIGUSR1, SIGUSR2]
      for signal in raised { raiseSynchronously(signal) }
      #expect(both.wait(forCount: raised.count, seconds: 60))
      // The pipe is read in order: once `both` has the last one, every subscriber has had all.
      for subscription in subscriptions { subscription.unsubscribe() }
      #expect(user1.values.map(\.rawValue) == [SIGUSR1, SIGUSR1, SIGUSR1])
      #expect(user2.values.map(\.rawValue) == [SIGUSR2, SIGUSR2])
      #expect(both.values.map(\.rawValue) == raised)
    }
  }

  @Test func aSendingThreadSubscriberMayUnsubscribeItselfAndReceivesNothingAfter() throws {
    try withHarmlessHandlers(SIGUSR1) {
      let recorder = Recorder<UnixSignal>()
      let own = LockedState<SendableSubscription?>(nil)
      let subscription = try Signals.deliveries(of: SIGUSR1).subscribe(on: .sendingThread) {
        signal in
        recorder.record(signal)
        own.withLock { $0 }?.unsubscribe()
      }
      own.withLock { $0 = subscription }
      for _ in 0..<3 { raiseSynchronously(SIGUSR1) }
      #expect(recorder.wait(forCount: 1, seconds: 60))
      // The subscriber unsubscribes just after it records, on its own thread: wait for that.
      // (Checked at once, this raced with it: seen under ThreadSanitizer.)
      let deadline = ContinuousClock.now + .seconds(60)
      while !subscription.isUnsubscribed && ContinuousClock.now < deadline { usleep(1_000) }
      #expect(subscription.isUnsubscribed)
      // The disposition is the harmless handler again (checked at the end), and a signal now
      // reaches nobody.
      raiseSynchronously(SIGUSR1)
      usleep(50_000)
      #expect(recorder.values.map(\.rawValue) == [SIGUSR1])
    }
  }

  /// A subscription made inside a `.sendingThread` subscriber, on the queue that reads the
  /// pipe, neither waits for that queue (which would wait for itself) nor misses what follows.
  @Test func aSendingThreadSubscriberMaySubscribeToAnotherSignal() throws {
    try withHarmlessHandlers(SIGUSR1, SIGUSR2) {
      let user2 = Recorder<UnixSignal>()
      let inner = LockedState<SendableSubscription?>(nil)
      let subscribed = Recorder<Bool>()
      let outer = try Signals.deliveries(of: SIGUSR1).subscribe(on: .sendingThread) { _ in
        let made = try? Signals.deliveries(of: SIGUSR2).subscribe(on: .sendingThread, user2.record)
        inner.withLock { $0 = made }
        subscribed.record(made != nil)
      }
      raiseSynchronously(SIGUSR1)
      #expect(subscribed.wait(forCount: 1, seconds: 60), "the subscription inside returned")
      outer.unsubscribe()
      raiseSynchronously(SIGUSR2)
      #expect(user2.wait(forCount: 1, seconds: 60))
      inner.withLock { $0 }?.unsubscribe()
      #expect(user2.values.map(\.rawValue) == [SIGUSR2])
    }
  }

  @Test func theSendingThreadFormRefusesWhatTheStreamRefuses() {
    #expect(throws: SignalError.noSignals) {
      try Signals.deliveries(of: []).subscribe(on: .sendingThread) { _ in }
    }
    #expect(throws: SignalError.notCatchable(UnixSignal(rawValue: SIGKILL))) {
      try Signals.deliveries(of: SIGKILL).subscribe(on: .sendingThread) { _ in }
    }
  }
}
