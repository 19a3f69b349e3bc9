import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Turns: an actor-bound subscriber fed by another thread takes what waited when its turn began,
/// at most 256 values, then lets its actor go; synchronous delivery when the sender already runs
/// on the subscriber's actor; what a subscriber that cannot keep up gets.
@MainActor @Suite(.serialized, .checksLiveResources) struct GateTurnTests {
  /// Issue 26's flood: a main-actor subscriber that spends 5 µs per value, a thread that sends
  /// as fast as it can for up to 2 s. A 50 ms sleep on the main actor came back after 3.7 to
  /// 4.0 s when a turn took every value added while it ran (8 s here, with 2 s of sending).
  ///
  /// The sleep's wake-up passes through the global executor, so a run in parallel with tests
  /// that hold its threads can delay it; CI runs the tests one at a time. The next test measures
  /// the same thing without the global executor.
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

  /// A turn takes at most 256 values, then lets other work on the actor run before the next.
  @Test func aTurnTakesAtMostTwoHundredFiftySixValuesThenLetsTheActorGo() async {
    let emitter = SharedEmitter<Int>()
    var received: [Int] = []
    let subscription = emitter.subscribe { received.append($0) }
    // The main actor is held (a synchronous wait) while another thread sends 1,000 values: they
    // all wait for their hop, and one turn is scheduled.
    onAnotherThread { for value in 0..<1000 { emitter.send(value) } }
    var seenByOtherWork: Int?
    let other = Task { @MainActor in seenByOtherWork = received.count }
    await other.value
    #expect(seenByOtherWork == 256)
    while received.count < 1000 { await Task.yield() }
    #expect(received == Array(0..<1000))
    subscription.unsubscribe()
  }

  /// Values sent from another thread during a turn wait for the next turn.
  @Test func valuesSentDuringATurnWaitForTheNextOne() async {
    let emitter = SharedEmitter<Int>()
    var received: [Int] = []
    var otherWorkRanAt: Int?
    let subscription = emitter.subscribe { value in
      received.append(value)
      if value == 0 {
        // Queued behind the next turn's task? No: before it, since this turn is running.
        Task { @MainActor in otherWorkRanAt = received.count }
        onAnotherThread { for value in 1..<4 { emitter.send(value) } }
      }
    }
    onAnotherThread { emitter.send(0) }
    while received.count < 4 { await Task.yield() }
    #expect(received == [0, 1, 2, 3])
    #expect(otherWorkRanAt == 1)
    subscription.unsubscribe()
  }

  /// Issue 26's wrapper: a `nonisolated` method of a `Sendable` model sends, called from the
  /// main actor. The value no longer hops, nor does a direct send after it.
  @Test func aSendThroughANonisolatedWrapperOnTheMainActorIsSynchronous() {
    let request = Request()
    var seen: [Int] = []
    let subscription = request.result.subscribe { seen.append($0) }
    request.finish(1)
    #expect(seen == [1])
    request.result.send(2)
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }

  /// A send from the subscriber's actor comes after the values that were waiting for their hop,
  /// and all of them arrive before it returns.
  @Test func aSendFromTheActorDeliversWhatWaitedFirstThenItsOwnValue() {
    let request = Request()
    var seen: [Int] = []
    let subscription = request.result.subscribe { seen.append($0) }
    onAnotherThread { for value in 1..<4 { request.result.send(value) } }
    #expect(seen == [])
    request.finish(4)
    #expect(seen == [1, 2, 3, 4])
    subscription.unsubscribe()
  }

  /// A subscriber bound to an actor that is not the main actor: a value that its gate delivers on
  /// that actor, and that the subscriber passes on through a `nonisolated` wrapper, reaches
  /// another subscriber bound to the same actor before the wrapper returns.
  @Test func aSendThroughAWrapperFromASubscribersTurnReachesItsActorSynchronously() async {
    let relay = Relay()
    await relay.start()
    onAnotherThread { for value in 1..<4 { relay.input.send(value) } }
    while await relay.log.count < 6 { await Task.yield() }
    #expect(await relay.log == ["in 1", "out 1", "in 2", "out 2", "in 3", "out 3"])
    await relay.stop()
  }

  /// Unbounded by default: a subscriber that cannot keep up gets every value, late.
  @Test func anUnboundedGateKeepsEveryValue() async {
    var received: [Int] = []
    let gate = ObserverGate<Int>(isolation: #isolation) { received.append($0) }
    onAnotherThread { for value in 0..<1000 { gate.send(value) } }
    while received.count < 1000 { await Task.yield() }
    #expect(received == Array(0..<1000))
    gate.close()
  }

  @Test func bufferingOldestDropsNewValuesWhileTheBufferIsFull() async throws {
    var received: [Int] = []
    let gate = ObserverGate<Int>(isolation: #isolation, buffering: try .bufferingOldest(3)) {
      received.append($0)
    }
    onAnotherThread { for value in 0..<10 { gate.send(value) } }
    while received.count < 3 { await Task.yield() }
    await Task.yield()
    #expect(received == [0, 1, 2])
    gate.send(10)  // from the actor: never dropped, never waits
    #expect(received == [0, 1, 2, 10])
    gate.close()
  }

  @Test func bufferingNewestDropsTheOldestWaitingValue() async throws {
    var received: [Int] = []
    let gate = ObserverGate<Int>(isolation: #isolation, buffering: try .bufferingNewest(3)) {
      received.append($0)
    }
    onAnotherThread { for value in 0..<10 { gate.send(value) } }
    while received.count < 3 { await Task.yield() }
    await Task.yield()
    #expect(received == [7, 8, 9])
    gate.close()
  }

  @Test func aBufferLimitBelowOneIsAThrownError() {
    for limit in [0, -1, Int.min] {
      let oldest = #expect(throws: GateBuffering.LimitNotPositive.self) {
        try GateBuffering.bufferingOldest(limit)
      }
      #expect(oldest?.limit == limit)
      let newest = #expect(throws: GateBuffering.LimitNotPositive.self) {
        try GateBuffering.bufferingNewest(limit)
      }
      #expect(newest?.limit == limit)
      if limit == 0 {
        #expect(newest.map { "\($0)" } == "buffer limit must be at least 1, not 0")
      }
    }
  }
}

/// Issue 26's flood: a thread that sends into a shared emitter as fast as it can, for 2 s or
/// until stopped, and a main-actor subscriber that spends 5 µs on each value.
@MainActor private final class Flood {
  let emitter = SharedEmitter<Int>()
  let start = Date()
  private var delivered = 0
  private var subscription: Subscription?
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

/// Issue 26's wrapper: a `Sendable` model that fires its event from a `nonisolated` method.
private final class Request: Sendable {
  let result = SharedEmitter<Int>()
  func finish(_ value: Int) { result.send(value) }
}

/// Passes each value of `input` on to `output` through a `nonisolated` method, on its own actor.
private actor Relay {
  let input = SharedEmitter<Int>()
  let output = Forwarder()
  var log: [String] = []
  private var subscriptions: [Subscription] = []

  /// Subscribes; the subscribers keep the relay until ``stop()``.
  func start() {
    let out = output.emitter.subscribe { value in self.log.append("out \(value)") }
    let into = input.subscribe { value in
      self.log.append("in \(value)")
      self.output.forward(value)
    }
    subscriptions = [out, into]
  }

  func stop() {
    for subscription in subscriptions { subscription.unsubscribe() }
    subscriptions = []
  }
}

private final class Forwarder: Sendable {
  let emitter = SharedEmitter<Int>()
  nonisolated func forward(_ value: Int) { emitter.send(value) }
}
