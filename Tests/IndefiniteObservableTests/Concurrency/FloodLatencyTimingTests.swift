import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Wall-clock latency on a flooded main actor: issue 26's promise that a 50 ms sleep on the main
/// actor comes back within 0.2 s while another thread floods a slow subscriber bound to it.
///
/// These measure time, which every other suite running in the same process shares: in a
/// parallel run the main actor and the global executor's two threads serve all the other tests
/// too (a sleep came back after 8.7 s there, with the gate letting the actor go every 256
/// values). So they run only when `TIMING_TESTS=1` is set, which `.ci/run` does in a step of
/// their own, with no other test in the process: `swift test --filter FloodLatencyTimingTests`.
/// The promise they time is checked by what happened, in every run, by
/// `GateTurnTests.aTurnTakesAtMostTwoHundredFiftySixValuesThenLetsTheActorGo`.
@MainActor
@Suite(
  .serialized, .checksLiveResources,
  .enabled(
    if: ProcessInfo.processInfo.environment["TIMING_TESTS"] == "1",
    "wall-clock latency: run alone, with TIMING_TESTS=1"))
struct FloodLatencyTimingTests {
  /// Issue 26's flood: a main-actor subscriber that spends 5 µs per value, a thread that sends
  /// as fast as it can for up to 2 s. A 50 ms sleep on the main actor came back after 3.7 to
  /// 4.0 s when a turn took every value added while it ran (8 s here, with 2 s of sending).
  ///
  @Test func aFloodFromAnotherThreadLetsASleepOnTheActorEndOnTime() async throws {
    let flood = Flood()
    try await Task.sleep(for: .milliseconds(50))
    let slept = flood.elapsed
    let delivered = flood.stop()
    print("flood: the 50 ms sleep came back after \(slept) s; \(delivered) values delivered")
    #expect(delivered > 0)
    #expect(slept < 0.2)
  }

  /// The flood again, with a block of the main queue due 50 ms after it starts as the other
  /// work on the main actor.
  @Test func aFloodFromAnotherThreadLetsOtherWorkOnTheActorRunOnTime() async {
    let flood = Flood()
    let ranAfter: TimeInterval = await withCheckedContinuation { ran in
      DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(50)) {
        ran.resume(returning: flood.elapsed)
      }
    }
    let delivered = flood.stop()
    print("flood: a main-queue block due at 50 ms ran after \(ranAfter) s")
    #expect(delivered > 0)
    #expect(ranAfter < 0.2)
  }

  /// Issue 26's flood again, with a `for await` loop over the same emitter's values on the main
  /// actor: cancelled 50 ms in, it ends at once (seen: 2 ms; 75 ms under ThreadSanitizer). When
  /// a cancelled loop drained its whole buffer first, it ended after 8.4 s.
  @Test func aCancelledLoopOnTheFloodedActorEndsOnTime() async {
    let flood = Flood()
    let emitter = flood.emitter
    let loop = Task { @MainActor in
      for await _ in emitter.stream().values {}
      return flood.elapsed
    }
    let cancelled: TimeInterval = await withCheckedContinuation { due in
      DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(50)) {
        loop.cancel()
        due.resume(returning: flood.elapsed)
      }
    }
    let ended = await loop.value
    let delivered = flood.stop()
    print("flood: a loop cancelled after \(cancelled) s ended after \(ended) s")
    #expect(delivered > 0)
    #expect(ended < 1)  // the sender runs for 2 s unless stopped
  }
}

/// Issue 26's flood: a thread that sends into a sendable emitter as fast as it can, for 2 s or
/// until stopped, and a main-actor subscriber that spends 5 µs on each value.
@MainActor private final class Flood {
  let emitter = SendableEmitter<Int>()
  let start = Date()
  private var delivered = 0
  private var subscription: SendableSubscription?
  private let stopped = LockedState(false)
  private let finished = DispatchSemaphore(value: 0)

  init() {
    subscription = emitter.subscribe { [unowned self] _ in
      delivered += 1
      let until = DispatchTime.now().uptimeNanoseconds + 5_000
      while DispatchTime.now().uptimeNanoseconds < until {}
    }
    let (emitter, stopped, start, finished) = (emitter, stopped, start, finished)
    Thread {
      var n = 0
      while !stopped.withLock({ $0 }) && Date().timeIntervalSince(start) < 2 {
        emitter.send(n)
        n += 1
      }
      finished.signal()
    }.start()
  }

  /// Seconds since the flood began.
  nonisolated var elapsed: TimeInterval { Date().timeIntervalSince(start) }

  /// Stops the sender and the subscriber; returns how many values the subscriber took.
  func stop() -> Int {
    stopped.withLock { $0 = true }
    finished.wait()
    subscription?.unsubscribe()
    return delivered
  }
}
