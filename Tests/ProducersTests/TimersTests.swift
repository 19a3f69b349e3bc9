import Dispatch
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// One attosecond: the finest `Duration`.
private let attosecond = Duration(secondsComponent: 0, attosecondsComponent: 1)

/// Minus one attosecond.
private let minusAttosecond = Duration(secondsComponent: 0, attosecondsComponent: -1)

/// A duration whose seconds do not fit in `Int64`: `Duration` holds it, but its `components`
/// trap.
private let beyondInt64Seconds = Duration.seconds(Int64.max) + .seconds(Int64.max)

/// The description of the error `body` throws, or "" when it throws none.
private func describedError(_ body: () throws -> Void) -> String {
  do {
    try body()
    return ""
  } catch {
    return String(describing: error)
  }
}

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
    (.nanoseconds(Int64.min), .notPositive(.nanoseconds(Int64.min))),
    (attosecond, .tooShort(attosecond)),
    (.nanoseconds(1), .tooShort(.nanoseconds(1))),
    (.nanoseconds(999_999), .tooShort(.nanoseconds(999_999))),
    (Timers.maximumInterval + .nanoseconds(1), .tooLong(Timers.maximumInterval + .nanoseconds(1))),
    (.seconds(Int64.max), .tooLong(.seconds(Int64.max))),
    (beyondInt64Seconds, .tooLong(beyondInt64Seconds)),
    (.seconds(1e20), .tooLong(.seconds(1e20))),
    (.zero - beyondInt64Seconds, .notPositive(.zero - beyondInt64Seconds)),
  ])
  func badIntervalsThrowWhenTheStreamIsMade(interval: Duration, error: TimerError) {
    #expect(throws: error) { try Timers.every(interval) }
  }

  @Test(arguments: [
    (-1e10, TimerError.notPositiveSeconds(-1e10)),
    (-0.0, .notPositiveSeconds(-0.0)),
    (0, .notPositiveSeconds(0)),
    (Double.leastNonzeroMagnitude, .tooShortSeconds(.leastNonzeroMagnitude)),
    (4e-10, .tooShortSeconds(4e-10)),
    (1e-9, .tooShortSeconds(1e-9)),
    // 999,999.4 ns: rounds to 999,999 ns, one short of the minimum.
    (0.000_999_999_4, .tooShortSeconds(0.000_999_999_4)),
    (2e9.nextUp, .tooLongSeconds(2e9.nextUp)),
    (1e10, .tooLongSeconds(1e10)),
    (1e300, .tooLongSeconds(1e300)),
    (Double.infinity, .notFinite(.infinity)),
    (-Double.infinity, .notFinite(-.infinity)),
  ])
  func badSecondsThrowTheValuePassed(seconds: Double, error: TimerError) {
    #expect(throws: error) { try Timers.every(seconds: seconds) }
  }

  @Test func notANumberOfSecondsThrowsNotFinite() {
    #expect {
      try Timers.every(seconds: .nan)
    } throws: { error in
      guard case .notFinite(let seconds) = error as? TimerError else { return false }
      return seconds.isNaN
    }
  }

  @Test(arguments: [
    (minusAttosecond, TimerError.negativeDelay(minusAttosecond)),
    (.seconds(-1), .negativeDelay(.seconds(-1))),
    (.nanoseconds(Int64.min), .negativeDelay(.nanoseconds(Int64.min))),
    (Timers.maximumInterval + .nanoseconds(1), .tooLong(Timers.maximumInterval + .nanoseconds(1))),
    (.seconds(Int64.max), .tooLong(.seconds(Int64.max))),
    (beyondInt64Seconds, .tooLong(beyondInt64Seconds)),
    (.zero - beyondInt64Seconds, .negativeDelay(.zero - beyondInt64Seconds)),
  ])
  func badDelaysThrowWhenTheStreamIsMade(delay: Duration, error: TimerError) {
    #expect(throws: error) { try Timers.after(delay) }
  }

  @Test(arguments: [
    Duration.nanoseconds(-1), minusAttosecond, .nanoseconds(Int64.min), .zero - beyondInt64Seconds,
  ])
  func negativeLeewayThrowsInEveryForm(leeway: Duration) {
    #expect(throws: TimerError.negativeLeeway(leeway)) {
      try Timers.every(.seconds(1), leeway: leeway)
    }
    #expect(throws: TimerError.negativeLeeway(leeway)) {
      try Timers.every(seconds: 1, leeway: leeway)
    }
    #expect(throws: TimerError.negativeLeeway(leeway)) { try Timers.after(.zero, leeway: leeway) }
  }

  @Test func everyErrorQuotesTheValuePassed() {
    let seconds: [(Double, String)] = [
      (-1e10, "not -10000000000.0 seconds"),
      (-0.0, "not -0.0 seconds"),
      (4e-10, "not 4e-10 seconds"),
      (Double.leastNonzeroMagnitude, "not 5e-324 seconds"),
      (2e9.nextUp, "not 2000000000.0000002 seconds"),
      (1e10, "not 10000000000.0 seconds"),
      (1e300, "not 1e+300 seconds"),
      (.nan, "not nan"),
      (-.infinity, "not -inf"),
    ]
    for (value, quote) in seconds {
      #expect(describedError { _ = try Timers.every(seconds: value) }.hasSuffix(quote), "\(value)")
    }
    let durations: [(Duration, String)] = [
      (.zero, "not 0.0 seconds"),
      (.nanoseconds(Int64.min), "not -9223372036.854775808 seconds"),
      (attosecond, "not 0.000000000000000001 seconds"),
      (.nanoseconds(999_999), "not 0.000999999 seconds"),
      (Timers.maximumInterval + .nanoseconds(1), "not 2000000000.000000001 seconds"),
      (.seconds(Int64.max), "not 9223372036854775807.0 seconds"),
      // Past Int64 seconds, `Duration`'s own description: 2 × (2^63 - 1) seconds.
      (beyondInt64Seconds, "not 1.8446744073709552e+19 seconds"),
      (.zero - beyondInt64Seconds, "not -1.8446744073709552e+19 seconds"),
    ]
    for (value, quote) in durations {
      #expect(describedError { _ = try Timers.every(value) }.hasSuffix(quote), "\(value)")
    }
    #expect(
      describedError { _ = try Timers.after(minusAttosecond) }.hasSuffix(
        "not -0.000000000000000001 seconds"))
    #expect(
      describedError { _ = try Timers.every(.seconds(1), leeway: .milliseconds(-1)) }
        .hasSuffix("not -0.001 seconds"))
  }

  @Test func theLimitsThemselvesAreAcceptedInBothForms() throws {
    // The longest interval is a real Dispatch deadline, not "never" (`distantFuture`).
    let now = DispatchTime.now()
    let deadline = now + .nanoseconds(2_000_000_000_000_000_000)
    #expect(deadline != .distantFuture)
    #expect(deadline.uptimeNanoseconds - now.uptimeNanoseconds == 2_000_000_000_000_000_000)
    let longest: [ValueObservable<Tick>] = [
      try Timers.every(Timers.maximumInterval),
      try Timers.every(seconds: 2e9),
      try Timers.after(Timers.maximumInterval),
    ]
    for stream in longest {
      stream.subscribe { _ in Issue.record("a longest timer ticked") }.unsubscribe()
    }
    // 999,999.5 ns rounds up to the minimum.
    for stream in [
      try Timers.every(Timers.minimumInterval), try Timers.every(seconds: 0.001),
      try Timers.every(seconds: 0.000_999_999_5),
    ] {
      let recorder = TickRecorder()
      let subscription = stream.subscribe(recorder.record)
      #expect(recorder.waitForTicks(2))
      subscription.unsubscribe()
    }
  }

  @Test func aZeroOrSubNanosecondDelayFiresAtOnce() throws {
    for delay in [Duration.zero, attosecond] {
      let recorder = TickRecorder()
      try Timers.after(delay).subscribe(recorder.record)
      #expect(recorder.waitForTicks(1))
    }
  }

  @Test func theShortestRepeatingTimerIsNotABusyLoop() throws {
    let recorder = TickRecorder()
    let subscription = try Timers.every(Timers.minimumInterval).subscribe(recorder.record)
    _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(200))
    subscription.unsubscribe()
    // At most one fire per millisecond, with room for a late start of the wait.
    #expect(recorder.ticks.count <= 250)
    #expect((recorder.ticks.last?.index ?? 0) <= 250)
  }

  @Test func aHugeLeewayIsAcceptedAndTheTimerStillTicks() throws {
    let repeating = TickRecorder()
    let subscription = try Timers.every(.milliseconds(5), leeway: .seconds(Int64.max))
      .subscribe(repeating.record)
    #expect(repeating.waitForTicks(2))
    subscription.unsubscribe()
    let once = TickRecorder()
    try Timers.after(.milliseconds(1), leeway: .seconds(Int64.max)).subscribe(once.record)
    #expect(once.waitForTicks(1))
    let beyond = TickRecorder()
    try Timers.after(.milliseconds(1), leeway: beyondInt64Seconds).subscribe(beyond.record)
    #expect(beyond.waitForTicks(1))
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
