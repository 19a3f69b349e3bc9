import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A counter that is not `Sendable`: what a serialized closure may keep.
private final class Tally {
  var values: [Int] = []
  var calls = 0
}

/// Code on no actor: what a `Sendable` store or monitor has.
private nonisolated func serialTally(_ recorder: Recorder<[Int]>) -> ObserverGate<Int> {
  let tally = Tally()
  return ObserverGate<Int>.serializing { value in
    tally.calls += 1
    tally.values.append(value)
    if value < 0 { recorder.record(tally.values) }
  }
}

private nonisolated func totals(
  of levels: SendableEmitter<Int>, into recorder: Recorder<Int>
) -> SendableSubscription {
  levels.through { $0.map { $0 * 10 }.removeDuplicates().scan(0, +) }
    .subscribe(on: .sendingThread) { recorder.record($0) }
}

@Suite(.checksLiveResources) struct SerializingGateTests {
  @Test func manyThreadsSendingAtOnceReachTheClosureOneAtATimeAndNothingIsLost() {
    let recorder = Recorder<[Int]>()
    let gate = serialTally(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for index in 0..<1_000 { gate.send(thread * 1_000 + index) }
    }
    gate.send(-1)
    #expect(recorder.wait(forCount: 1))
    let seen = recorder.values[0]
    #expect(seen.count == 8_001)
    #expect(Set(seen.dropLast()) == Set(0..<8_000))
    // Each thread's values arrive in the order it sent them.
    for thread in 0..<8 {
      let mine = seen.filter { $0 >= 0 && $0 / 1_000 == thread }
      #expect(mine == mine.sorted())
    }
    gate.close()
  }

  @Test func aSendFromTheClosureIsDeliveredAfterTheCallReturns() {
    let recorder = Recorder<String>()
    let box = LockedState<ObserverGate<Int>?>(nil)
    let gate = ObserverGate<Int>.serializing { value in
      recorder.record("begin \(value)")
      if value == 1 { box.withLock { $0 }?.send(2) }
      recorder.record("end \(value)")
    }
    box.withLock { $0 = gate }
    #expect(gate.send(1))
    #expect(recorder.values == ["begin 1", "end 1", "begin 2", "end 2"])
    gate.close()
    #expect(!gate.send(3))
    box.withLock { $0 = nil }
  }
}

@Suite(.checksLiveResources) struct ThroughTests {
  @Test func aChainBuiltOnNoActorRunsOnTheSendingThreadsAndLosesNoValue() {
    let levels = SendableEmitter<Int>()
    let recorder = Recorder<Int>()
    let subscription = totals(of: levels, into: recorder)
    levels.send(1)
    levels.send(1)  // a duplicate: removed
    levels.send(2)
    #expect(recorder.values == [10, 30])
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      // Alternating values, so that removeDuplicates passes each one: 1,000 each.
      for index in 0..<1_000 { levels.send(index % 2 == 0 ? 3 : 4) }
      _ = thread
    }
    // The scan's total is exact however the threads interleaved: one value at a time.
    let values = recorder.values
    #expect(values.count > 2)
    let sums = zip(values.dropFirst(2), values.dropFirst()).map { $0 - $1 }
    #expect(sums.allSatisfy { $0 == 30 || $0 == 40 }, "\(sums.filter { $0 != 30 && $0 != 40 })")
    subscription.unsubscribe()
    levels.send(9)
    #expect(recorder.values == values)
    #expect(levels.subscriberCount == 0)
  }

  @Test func endingASubscriptionDisconnectsItsChainOnceAndAnEndInsideADeliveryStopsIt() {
    let levels = SendableEmitter<Int>()
    let disconnects = LockedState(0)
    let recorder = Recorder<Int>()
    let ended = LockedState<SendableSubscription?>(nil)
    let subscription = levels.through {
      $0.handleEvents(receiveCancel: { disconnects.withLock { $0 += 1 } }).map { $0 + 1 }
    }.subscribe(on: .sendingThread) { value in
      recorder.record(value)
      if value == 2 { ended.withLock { $0 }?.unsubscribe() }
    }
    ended.withLock { $0 = subscription }
    levels.send(0)
    levels.send(1)
    levels.send(2)
    #expect(recorder.values == [1, 2])
    #expect(disconnects.withLock { $0 } == 1)
    #expect(levels.subscriberCount == 0)
    subscription.unsubscribe()
    #expect(disconnects.withLock { $0 } == 1)
    ended.withLock { $0 = nil }
  }

  @Test func aCurrentValuesChainStartsWithItsValue() {
    let mode = SendableCurrentValue("light")
    let recorder = Recorder<String>()
    let subscription = mode.through { $0.map { $0.uppercased() } }
      .subscribe(on: .sendingThread) { recorder.record($0) }
    mode.value = "dark"
    #expect(recorder.values == ["LIGHT", "DARK"])
    subscription.unsubscribe()
  }

  @MainActor @Test func anActorSubscriberGetsTheChainsValuesOnItsActor() async {
    let levels = SendableEmitter<Int>()
    var seen: [Int] = []
    let subscription = levels.through { $0.filter { $0 > 1 } }.subscribe { seen.append($0) }
    levels.send(1)
    levels.send(2)  // sent on the main actor: delivered at once
    #expect(seen == [2])
    await Task.detached { levels.send(3) }.value
    while seen.count < 2 { await Task.yield() }
    #expect(seen == [2, 3])
    subscription.unsubscribe()
  }
}

@Suite(.checksLiveResources) struct ProducerShareTests {
  /// A producer that counts its connections and disconnections, and sends what its test sends.
  private final class Counted: Sendable {
    let connects = LockedState(0)
    let disconnects = LockedState(0)
    let emitter = SendableEmitter<Int>(keepingLast: 0)

    var producer: Producer<Int> {
      Producer { gate in
        self.connects.withLock { $0 += 1 }
        let subscription = self.emitter.subscribe(on: .sendingThread) { gate.send($0) }
        return {
          subscription.unsubscribe()
          self.disconnects.withLock { $0 += 1 }
        }
      }
    }
  }

  @Test func oneConnectionForEverySubscriberUntilTheLastLeaves() {
    let counted = Counted()
    let shared = counted.producer.through { $0.scan(0, +) }.share(replayingLast: 1)
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    let a = shared.subscribe(on: .sendingThread) { first.record($0) }
    counted.emitter.send(1)
    counted.emitter.send(2)
    let b = shared.subscribe(on: .sendingThread) { second.record($0) }
    counted.emitter.send(3)
    #expect(first.values == [1, 3, 6])
    #expect(second.values == [3, 6])  // the last total first, then the same totals
    #expect(counted.connects.withLock { $0 } == 1)
    a.unsubscribe()
    #expect(counted.disconnects.withLock { $0 } == 0)
    b.unsubscribe()
    #expect(counted.disconnects.withLock { $0 } == 1)
    let again = Recorder<Int>()
    let c = shared.subscribe(on: .sendingThread) { again.record($0) }
    counted.emitter.send(4)
    #expect(again.values == [4])  // a new connection: a new scan, nothing to replay
    #expect(counted.connects.withLock { $0 } == 2)
    c.unsubscribe()
    #expect(counted.disconnects.withLock { $0 } == 2)
  }
}
