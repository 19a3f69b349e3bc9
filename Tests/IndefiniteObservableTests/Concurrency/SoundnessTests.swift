import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The three scenarios of the soundness rule ("a subscriber runs where the compiler thinks it
/// runs"), as they run. What the compiler rejects is checked by the counter-examples of
/// Guides/Concurrency.md, which `.ci/check-guides` compiles and expects to fail.
@MainActor @Suite(.checksLiveResources) struct SoundnessTests {
  /// Scenario 1: main-actor code subscribes a closure that mutates main-actor state, and values
  /// are sent from a global queue. The closure runs on the main actor.
  @Test func aMainActorSubscriberOfASendableEmitterRunsOnTheMainActorWhenSentFromAQueue() async {
    let source = SendableEmitter<Int>()
    var total = 0
    var deliveries = 0
    let subscription = source.subscribe { value in
      MainActor.assertIsolated()
      total += value
      deliveries += 1
    }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask {
          await withCheckedContinuation { done in
            DispatchQueue.global().async {
              for value in 1...250 { source.send(sender * 1000 + value) }
              done.resume()
            }
          }
        }
      }
    }
    while deliveries < 1000 { await Task.yield() }
    #expect(total == (0..<4).reduce(0) { sum, sender in sum + 250 * sender * 1000 } + 4 * 31_375)
    subscription.unsubscribe()
  }

  /// Scenario 2: a `@MainActor` view model binds itself in one line; values come from a
  /// background thread, and the binding runs on the main actor.
  @Test func aMainActorOwnerBindsInOneLineAndRunsOnTheMainActor() async {
    let source = SendableEmitter<String>()
    let model = ViewModel(source: source)
    await Task.detached { source.send("from a background task") }.value
    while model.label.isEmpty { await Task.yield() }
    #expect(model.label == "from a background task")
    #expect(model.ranOnMainActor)
  }

  /// Values sent from one thread reach an actor-bound subscriber in the order sent, and a value
  /// sent from the subscriber's own actor, with none waiting, arrives before `send` returns.
  @Test func valuesKeepTheirOrderAcrossTheHopAndSameActorSendsAreSynchronous() async {
    let source = SendableEmitter<Int>()
    var received: [Int] = []
    let subscription = source.subscribe { received.append($0) }
    source.send(0)
    #expect(received == [0])  // sent from the main actor: delivered at once
    await Task.detached {
      for value in 1...500 { source.send(value) }
    }.value
    while received.count < 501 { await Task.yield() }
    #expect(received == Array(0...500))
    subscription.unsubscribe()
  }

  /// Once `unsubscribe()` returns, values still waiting for their hop are dropped.
  @Test func unsubscribingDropsValuesWaitingForTheirHop() async {
    let source = SendableEmitter<Int>()
    var received: [Int] = []
    let subscription = source.subscribe { received.append($0) }
    // Sent from another thread while this test holds the main actor (a synchronous wait): each
    // value waits for its hop. (A send with nil isolation from this test would not wait: the
    // main queue runs it, so it is delivered at once.)
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      for value in 1...100 { source.send(value) }
      sent.signal()
    }
    sent.wait()
    #expect(received.isEmpty)
    subscription.unsubscribe()
    for _ in 0..<10 { await Task.yield() }
    #expect(received.isEmpty)
  }

  /// A subscriber written inside another actor runs on that actor.
  @Test func anActorsSubscriberRunsOnThatActor() async {
    let source = SendableEmitter<Int>()
    let counter = Counting()
    await counter.bind(to: source)
    await Task.detached { for value in 1...100 { source.send(value) } }.value
    while await counter.total < 5050 { await Task.yield() }
    #expect(await counter.ranIsolated)
  }

  /// Scenario 3, the sound way: code on no actor subscribes a `@Sendable` closure on a queue,
  /// its state behind a lock, and several threads send.
  @Test func codeOnNoActorSubscribesASendableClosureOnAQueue() {
    nonisolatedSubscriberOnAQueue()
  }

  /// The isolation-bound `ObserverGate` never calls its closure off its actor.
  @Test func anActorBoundGateCallsItsClosureOnlyOnItsActor() async {
    var calls = 0
    let gate = ObserverGate<Int>(isolation: #isolation) { _ in
      MainActor.assertIsolated()
      calls += 1
    }
    gate.send(1)
    #expect(calls == 1)  // from its own actor: at once
    await Task.detached { _ = gate.send(2) }.value
    while calls < 2 { await Task.yield() }
    gate.close()
  }

  /// The README's `Clicks`, ended from `Task.detached`, does not compile (the Concurrency
  /// guide's counter-example); the same program over a `SendableEmitter`, whose subscriptions
  /// any thread may end, compiles and runs with no race (under ThreadSanitizer in CI): each
  /// subscription ends on another thread while the main actor sends, and nothing reaches a
  /// subscriber once its `unsubscribe()` has returned.
  @Test func aSendableSourcesSubscriptionsEndOnDetachedTasksWithNoRace() async {
    let clicks = SendableEmitter<Int>()
    clicks.maxSubscribers = .max
    var delivered = 0
    var ends: [Task<Void, Never>] = []
    for round in 0..<2_000 {
      let subscription = clicks.subscribe { _ in delivered += 1 }
      ends.append(Task.detached { subscription.unsubscribe() })
      clicks.send(round)
    }
    for end in ends { await end.value }
    let before = delivered
    clicks.send(-1)
    #expect(delivered == before)
    #expect(clicks.subscriberCount == 0)
  }
}

@MainActor private final class ViewModel {
  var label = ""
  var ranOnMainActor = false

  init(source: SendableEmitter<String>) {
    source.subscribe(self) { owner, value in owner.label = value }
    source.subscribe(self) { owner, _ in
      MainActor.assertIsolated()
      owner.ranOnMainActor = true
    }
  }
}

private actor Counting {
  var total = 0
  var ranIsolated = true

  func bind(to source: SendableEmitter<Int>) {
    source.subscribe { value in
      self.assertIsolated()
      self.total += value
    }
  }
}

private nonisolated func nonisolatedSubscriberOnAQueue() {
  let source = SendableEmitter<Int>()
  let queue = DispatchQueue(label: "scenario 3")
  let total = LockedState(0)
  let subscription = source.subscribe(on: queue) { value in total.withLock { $0 += value } }
  DispatchQueue.concurrentPerform(iterations: 4) { _ in
    for value in 1...100 { source.send(value) }
  }
  queue.sync {}
  #expect(total.withLock { $0 } == 4 * 5050)
  subscription.unsubscribe()
}
