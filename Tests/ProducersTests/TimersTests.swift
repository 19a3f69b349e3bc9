import Dispatch
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// Collects ticks delivered on a timer's queue and lets a test wait for them.
private final class TickRecorder: @unchecked Sendable {
  // `ticks` is guarded by `lock`; `arrived` is a semaphore, thread-safe by itself.
  private let lock = DispatchSemaphore(value: 1)
  private var recorded: [Tick] = []
  private let arrived = DispatchSemaphore(value: 0)

  func record(_ tick: Tick) {
    lock.wait()
    recorded.append(tick)
    lock.signal()
    arrived.signal()
  }

  var ticks: [Tick] {
    lock.wait()
    defer { lock.signal() }
    return recorded
  }

  /// Whether one more tick arrives within `interval`.
  func arrivedWithin(_ interval: DispatchTimeInterval) -> Bool {
    arrived.wait(timeout: .now() + interval) == .success
  }

  /// Waits for `count` more ticks, for at most 5 seconds each; false if they did not come.
  func waitForTicks(_ count: Int) -> Bool {
    (0..<count).allSatisfy { _ in arrived.wait(timeout: .now() + 5) == .success }
  }
}

@Suite(.checksLiveResources) struct TimersTests {
  @Test func repeatingTimerTicksWithIncreasingIndices() throws {
    let recorder = TickRecorder()
    let subscription = try Timers.every(.milliseconds(5)).subscribe(recorder.record)
    #expect(recorder.waitForTicks(3))
    subscription.unsubscribe()
    let ticks = recorder.ticks
    #expect(ticks.first?.index == ticks.first?.merged)
    #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.index == $0.index + $1.merged })
  }

  @Test func oneShotDelayTicksOnce() throws {
    let recorder = TickRecorder()
    let queue = DispatchQueue(label: "test")
    try Timers.after(.milliseconds(5), on: queue).subscribe(recorder.record)
    #expect(recorder.waitForTicks(1))
    #expect(!recorder.waitForTicksWithin(milliseconds: 100))
    #expect(recorder.ticks == [Tick(index: 1)])
  }

  @Test func unsubscribeOnTheDeliveryQueueStopsTicksAtOnce() throws {
    let recorder = TickRecorder()
    let queue = DispatchQueue(label: "delivery")
    nonisolated(unsafe) var subscription: Subscription?
    let stop = DispatchSemaphore(value: 0)
    queue.sync {
      subscription = try? Timers.every(.milliseconds(1), on: queue).subscribe { tick in
        recorder.record(tick)
        if tick.index >= 2 {
          subscription?.unsubscribe()
          stop.signal()
        }
      }
    }
    #expect(stop.wait(timeout: .now() + 5) == .success)
    let countAtUnsubscribe = recorder.ticks.count
    // Twenty intervals later, still no further tick.
    queue.sync {}
    _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(20))
    queue.sync {}
    #expect(recorder.ticks.count == countAtUnsubscribe)
    #expect(recorder.ticks.last?.index == 2 || recorder.ticks.last.map { $0.merged > 1 } == true)
  }

  @Test func eachSubscriptionOwnsItsTimer() throws {
    let ticks = try Timers.after(.milliseconds(1))
    let first = TickRecorder()
    let second = TickRecorder()
    ticks.subscribe(first.record)
    ticks.subscribe(second.record)
    #expect(first.waitForTicks(1))
    #expect(second.waitForTicks(1))
  }

  @Test func firesMergedWhileTheQueueWasBusyAreCounted() throws {
    let recorder = TickRecorder()
    let queue = DispatchQueue(label: "busy")
    let release = DispatchSemaphore(value: 0)
    queue.async { _ = release.wait(timeout: .now() + 5) }
    let subscription = try Timers.every(.milliseconds(2), on: queue).subscribe(recorder.record)
    // Keep the queue busy for well over one interval, then let the timer catch up.
    _ = recorder.waitForTicksWithin(milliseconds: 60)
    release.signal()
    #expect(recorder.waitForTicks(1))
    subscription.unsubscribe()
    #expect((recorder.ticks.first?.merged ?? 0) > 1)
  }

  @Test(arguments: [
    (Duration.zero, TimerError.notPositive(.zero)),
    (.milliseconds(-1), .notPositive(.milliseconds(-1))),
    (.seconds(Int64.max), .tooLong(.seconds(Int64.max))),
  ])
  func badIntervalsThrowWhenTheStreamIsMade(interval: Duration, error: TimerError) {
    #expect(throws: error) { try Timers.every(interval) }
  }

  @Test func nonFiniteSecondsThrow() {
    #expect(throws: TimerError.notFinite(.infinity)) { try Timers.every(seconds: .infinity) }
    #expect(throws: TimerError.self) { try Timers.every(seconds: .nan) }
    #expect(throws: TimerError.notPositive(.zero)) { try Timers.every(seconds: 0) }
  }

  @Test func negativeDelayAndLeewayThrow() {
    #expect(throws: TimerError.notPositive(.seconds(-1))) { try Timers.after(.seconds(-1)) }
    #expect(throws: TimerError.negativeLeeway(.seconds(-1))) {
      try Timers.every(.seconds(1), leeway: .seconds(-1))
    }
  }

  @MainActor
  @Test func subscribingFromMainActorCodeDeliversWithoutCrashing() throws {
    let recorder = TickRecorder()
    let subscription = try Timers.every(.milliseconds(2)).subscribe { recorder.record($0) }
    #expect(recorder.waitForTicks(2))
    subscription.unsubscribe()
  }

  @Test func manySubscribeUnsubscribeCyclesReleaseEveryTimer() throws {
    weak var lastHandlerWitness: AnyObject?
    let ticks = try Timers.every(.milliseconds(1))
    for _ in 0..<200 {
      final class Witness {}
      let witness = Witness()
      lastHandlerWitness = witness
      ticks.subscribe { _ in _ = witness }.unsubscribe()
    }
    // The cancel handler runs asynchronously on the timer's queue; give it time to release.
    let deadline = DispatchTime.now() + 5
    while lastHandlerWitness != nil && DispatchTime.now() < deadline {
      _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(5))
    }
    #expect(lastHandlerWitness == nil)
  }
}

extension TickRecorder {
  /// Whether a tick arrives within `milliseconds`; used to check that none does.
  fileprivate func waitForTicksWithin(milliseconds: Int) -> Bool {
    arrivedWithin(.milliseconds(milliseconds))
  }
}
