import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The key that marks the mailbox's queue, so that code can ask whether it runs there.
private let mailboxQueueKey = DispatchSpecificKey<Int>()

/// A model confined to a queue, as ZCRMailbox's: an actor that runs on its executor's queue.
private actor Mailbox {
  let executor = SerialQueueExecutor(label: "SerialQueueExecutorTests.mailbox")
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }
  var received: [Int] = []
  var onQueue: [Bool] = []
  var subscription: SendableSubscription?

  init() {
    executor.queue.setSpecific(key: mailboxQueueKey, value: 1)
  }

  func receive(_ value: Int) {
    onQueue.append(DispatchQueue.getSpecific(key: mailboxQueueKey) == 1)
    received.append(value)
  }

  func listen(to messages: SendableEmitter<Int>) {
    subscription = messages.subscribe { value in self.receive(value) }
  }
}

@Suite(.checksLiveResources) struct SerialQueueExecutorTests {
  @Test func anActorsIsolatedCodeRunsOnTheExecutorsQueue() async {
    let mailbox = Mailbox()
    for value in 0..<10 { await mailbox.receive(value) }
    #expect(await mailbox.received == Array(0..<10))
    #expect(await mailbox.onQueue == Array(repeating: true, count: 10))
  }

  @Test func aBlockOnTheQueueMayAssumeTheActorsIsolation() async {
    let mailbox = Mailbox()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      mailbox.executor.queue.async {
        mailbox.preconditionIsolated()
        mailbox.assumeIsolated { $0.receive(1) }
        done.resume()
      }
    }
    #expect(await mailbox.received == [1])
    #expect(await mailbox.onQueue == [true])
  }

  @Test func blocksOnTheQueueAndTheActorsJobsTakeTurns() async {
    let mailbox = Mailbox()
    await withTaskGroup(of: Void.self) { group in
      for value in 0..<200 {
        if value.isMultiple(of: 2) {
          group.addTask { await mailbox.receive(value) }
        } else {
          mailbox.executor.queue.async { mailbox.assumeIsolated { $0.receive(value) } }
        }
      }
    }
    await mailbox.executor.queue.drained()  // the blocks submitted before this one have run
    #expect(await mailbox.received.count == 200)
    #expect(await Set(mailbox.received) == Set(0..<200))
    #expect(await mailbox.onQueue.allSatisfy { $0 })
  }

  @Test func aSubscriberWrittenInTheActorRunsOnItsQueue() async {
    let mailbox = Mailbox()
    let messages = SendableEmitter<Int>()
    await mailbox.listen(to: messages)
    onAnotherThread { for value in 0..<5 { messages.send(value) } }
    for _ in 0..<10_000 where await mailbox.received.count < 5 {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(await mailbox.received == Array(0..<5))
    #expect(await mailbox.onQueue == Array(repeating: true, count: 5))
    await mailbox.subscription?.unsubscribe()
  }
}

extension DispatchQueue {
  /// Returns once the blocks submitted to this serial queue before the call have run.
  fileprivate func drained() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      async { done.resume() }
    }
  }
}
