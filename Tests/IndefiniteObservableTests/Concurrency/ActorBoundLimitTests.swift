import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A limited subscription bound to an actor receives the values its limit counted, also when
/// they hop from another thread: the limit's end must not drop a value waiting for its hop.
/// (Found porting Combine's `Future` to `subscribe(replayingLast: true, limit: 1)`: 292 sends of
/// 300 from another thread were lost.)
@MainActor @Suite(.checksLiveResources) struct ActorBoundLimitTests {
  @Test func aLimitOfOneReceivesAValueSentFromAnotherThread() async {
    var lost = 0
    for _ in 0..<50 {
      let emitter = SendableEmitter<Int>()
      var seen: [Int] = []
      emitter.subscribe(limit: 1) { seen.append($0) }
      await Task.detached { emitter.send(1) }.value
      if !(await eventually(seconds: 10) { !seen.isEmpty }) { lost += 1 }
      #expect(emitter.subscriberCount == 0)
    }
    #expect(lost == 0)
  }

  @Test func aLimitReceivesExactlyItsCountOfValuesSentFromAnotherThread() async {
    let emitter = SendableEmitter<Int>()
    var seen: [Int] = []
    let subscription = emitter.subscribe(limit: 3) { seen.append($0) }
    await Task.detached { for value in 1...10 { emitter.send(value) } }.value
    #expect(await eventually { seen.count >= 3 })
    await Task.yield()
    #expect(seen == [1, 2, 3])
    #expect(emitter.subscriberCount == 0)
    subscription.unsubscribe()
  }

  @Test func aReplayAndALimitOfOneTakeTheReplayOnly() async {
    let emitter = SendableEmitter<Int>()
    emitter.send(7)
    var seen: [Int] = []
    emitter.subscribe(replayingLast: true, limit: 1) { seen.append($0) }
    #expect(seen == [7])
    await Task.detached { emitter.send(8) }.value
    await Task.yield()
    #expect(seen == [7])
    #expect(emitter.subscriberCount == 0)
  }

  @Test func anOwnerBoundLimitOnASendableCurrentValueReceivesAHoppedChange() async {
    final class Screen {
      var values: [Int] = []
    }
    let value = SendableCurrentValue(0)
    let screen = Screen()
    value.subscribe(screen, replayingLast: false, limit: 1) { screen, new in
      screen.values.append(new)
    }
    await Task.detached { value.value = 5 }.value
    #expect(await eventually { !screen.values.isEmpty })
    #expect(screen.values == [5])
    #expect(value.subscriberCount == 0)
  }
}
