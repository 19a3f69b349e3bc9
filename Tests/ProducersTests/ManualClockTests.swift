import Producers
import TestSupport
import Testing

@Suite struct ManualClockTests {
  @Test func aSleepingTaskWakesWhenAnAdvancePassesItsDeadline() async throws {
    let clock = ManualClock()
    let deadline = clock.now.advanced(by: .seconds(2))
    let sleeper = Task { try await clock.sleep(until: deadline) }
    #expect(await eventually { clock.pendingCount == 1 })
    await clock.advance(by: .seconds(1))
    #expect(clock.pendingCount == 1)
    await clock.advance(by: .seconds(1))
    try await sleeper.value
    #expect(clock.pendingCount == 0)
    #expect(clock.now == deadline)
  }

  @Test func aSleepForAPassedDeadlineReturnsAtOnce() async throws {
    let clock = ManualClock()
    await clock.advance(by: .seconds(1))
    try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)))
    #expect(clock.pendingCount == 0)
  }

  @Test func cancellingASleepingTaskThrowsCancellationAndLeavesNothingWaiting() async {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(1))) }
    #expect(await eventually { clock.pendingCount == 1 })
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.pendingCount == 0)
  }

  @Test func aTaskCancelledBeforeItSleepsThrowsCancellationAndLeavesNothingWaiting() async {
    let clock = ManualClock()
    let sleeper = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(until: clock.now.advanced(by: .seconds(1)))
    }
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.pendingCount == 0)
  }
}
