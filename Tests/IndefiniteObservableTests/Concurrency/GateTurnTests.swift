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
  /// A turn takes at most 256 values, then lets other work on the actor run before the next.
  @Test func aTurnTakesAtMostTwoHundredFiftySixValuesThenLetsTheActorGo() async {
    let emitter = SendableEmitter<Int>()
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
    let emitter = SendableEmitter<Int>()
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

  /// A producer's callback with no static isolation, on the main thread: `sendFromCurrentThread`
  /// reaches a main-actor gate before it returns, where `send` (isolation nil) hops; from another
  /// thread, both hop.
  @Test func aSendFromTheCurrentThreadOnTheMainActorIsSynchronous() async {
    var seen: [Int] = []
    let gate = ObserverGate<Int>(isolation: MainActor.shared) { seen.append($0) }
    systemCallback { gate.send(1) }
    #expect(seen == [])
    systemCallback { gate.sendFromCurrentThread(2) }
    #expect(seen == [1, 2])
    onAnotherThread { gate.sendFromCurrentThread(3) }
    #expect(seen == [1, 2])
    while seen.count < 3 { await Task.yield() }
    #expect(seen == [1, 2, 3])
    gate.close()
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

  /// A turn is the gate's, not the sender's: the task-local values of a task that sends do not
  /// reach the subscriber on the main actor (a turn there is a block of the main queue).
  @Test func aTurnOnTheMainActorCarriesNoneOfTheSendersTaskLocals() async {
    var seen: [String?] = []
    let gate = ObserverGate<Int>(isolation: #isolation) { _ in seen.append(Sender.name) }
    await Task.detached { Sender.$name.withValue("sender") { _ = gate.send(1) } }.value
    while seen.isEmpty { await Task.yield() }
    #expect(seen == [nil])
    gate.close()
  }

  /// The same on another actor (a turn there is a detached task).
  @Test func aTurnOnAnotherActorCarriesNoneOfTheSendersTaskLocals() async {
    let listener = Listener()
    let gate = await listener.gate()
    await Task.detached { Sender.$name.withValue("sender") { _ = gate.send(1) } }.value
    while await listener.seen.isEmpty { await Task.yield() }
    #expect(await listener.seen == [nil])
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

/// Issue 26's wrapper: a `Sendable` model that fires its event from a `nonisolated` method.
private final class Request: Sendable {
  let result = SendableEmitter<Int>()
  func finish(_ value: Int) { result.send(value) }
}

/// Passes each value of `input` on to `output` through a `nonisolated` method, on its own actor.
private actor Relay {
  let input = SendableEmitter<Int>()
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
    subscriptions = [Subscription(out), Subscription(into)]
  }

  func stop() {
    for subscription in subscriptions { subscription.unsubscribe() }
    subscriptions = []
  }
}

private final class Forwarder: Sendable {
  let emitter = SendableEmitter<Int>()
  nonisolated func forward(_ value: Int) { emitter.send(value) }
}

/// A task-local value that a sender binds.
private enum Sender {
  @TaskLocal static var name: String?
}

/// An actor whose gate records the sender's task-local value at each delivery.
private actor Listener {
  var seen: [String?] = []

  func gate() -> ObserverGate<Int> {
    ObserverGate(isolation: self) { _ in self.seen.append(Sender.name) }
  }
}

/// Calls `body` as a system's callback would: a `@Sendable` closure, nonisolated, on the
/// calling thread.
private func systemCallback(_ body: @Sendable () -> Void) { body() }
