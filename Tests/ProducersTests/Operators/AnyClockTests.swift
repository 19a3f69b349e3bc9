import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// A clock that is neither Dispatch's nor a `ManualClock`: the timers and operators wait on it
/// with a task that sleeps on the clock.
private struct OtherClock: Clock {
  let base = ContinuousClock()
  var now: ContinuousClock.Instant { base.now }
  var minimumResolution: Duration { base.minimumResolution }
  func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}

@MainActor
@Suite(.checksLiveResources) struct AnyClockTests {
  @Test func timersAndTheTimeOperatorsWaitOnAnyClock() async throws {
    let clock = OtherClock()
    var ticks: [Int] = []
    let ticking = Timers.every(.milliseconds(2), clock: clock).subscribe { tick in
      MainActor.assertIsolated()
      ticks.append(tick.index)
    }
    let source = Emitter<Int>()
    var debounced: [Int] = []
    var throttled: [Int] = []
    var delayed: [Int] = []
    let subscriptions = [
      source.debounce(for: .milliseconds(5), clock: clock).subscribe { debounced.append($0) },
      source.throttle(for: .milliseconds(5), clock: clock, latest: true)
        .subscribe { throttled.append($0) },
      source.delay(for: .milliseconds(5), clock: clock).subscribe { delayed.append($0) },
    ]
    source.send(1)
    source.send(2)
    #expect(await eventually { debounced == [2] && throttled == [1, 2] && delayed == [1, 2] })
    #expect(await eventually { ticks.count >= 3 })
    ticking.unsubscribe()
    for subscription in subscriptions { subscription.unsubscribe() }
    #expect(Array(ticks.prefix(3)) == [1, 2, 3])
  }
}
