import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

/// `debounce`, `throttle` and `delay` applied directly to a `SendableEmitter` or a
/// `SendableCurrentValue`: the stream belongs to the caller's actor, whichever thread sends.
@MainActor
@Suite struct SendableSourceTimeOperatorsTests {
  @Test func debounceOnASendableEmitterPassesOnTheLastOfABurstSentFromAnyThread() async throws {
    let clock = ManualClock()
    let source = SendableEmitter<Int>()
    var seen: [Int] = []
    let subscription = source.stream().debounce(for: .milliseconds(100), clock: clock)
      .subscribe {
        MainActor.assertIsolated()
        seen.append($0)
      }
    source.send(1)
    source.send(2)  // from the main actor: taken before send returns, so one burst
    await clock.advance(by: .milliseconds(99))
    #expect(seen == [])
    await clock.advance(by: .milliseconds(1))
    #expect(seen == [2])

    await Task.detached { source.send(3) }.value  // another thread: hops to the main actor
    // The hop, not the clock, is waited for: the actor took the value once its wait began.
    #expect(await eventually { clock.pendingCount == 1 })
    await clock.advance(by: .milliseconds(100))
    #expect(seen == [2, 3])
    subscription.unsubscribe()
    #expect(source.subscriberCount == 0)
  }

  @Test func throttleOnASendableCurrentValuePassesTheCurrentValueAtOnceThenOnePerInterval()
    async throws
  {
    let clock = ManualClock()
    let source = SendableCurrentValue(0)
    var seen: [Int] = []
    let subscription = source.stream().throttle(for: .milliseconds(100), clock: clock, latest: true)
      .subscribe {
        MainActor.assertIsolated()
        seen.append($0)
      }
    #expect(seen == [0])
    source.send(1)
    source.update { $0 += 1 }
    #expect(seen == [0])
    await clock.advance(by: .milliseconds(100))
    #expect(seen == [0, 2])
    subscription.unsubscribe()
    #expect(source.subscriberCount == 0)
  }

  @Test func delayOnASendableEmitterPassesOnEveryValueIntervalAfterTheActorTookItInOrder()
    async throws
  {
    let clock = ManualClock()
    let source = SendableEmitter<Int>()
    var seen: [Int] = []
    let subscription = source.stream().delay(for: .milliseconds(100), clock: clock)
      .subscribe {
        MainActor.assertIsolated()
        seen.append($0)
      }
    await Task.detached { source.send(1) }.value  // another thread: hops to the main actor
    // The hop, not the clock, is waited for: the actor took the value once its wait began.
    #expect(await eventually { clock.pendingCount == 1 })
    source.send(2)  // from the main actor: taken before send returns
    await clock.advance(by: .milliseconds(99))
    #expect(seen == [])
    await clock.advance(by: .milliseconds(1))
    #expect(seen == [1, 2])
    subscription.unsubscribe()
    #expect(source.subscriberCount == 0)
  }

  @Test func theTimeOperatorsOnASendableCurrentValueStartFromTheCurrentValue() async throws {
    let clock = ManualClock()
    let source = SendableCurrentValue("ready")
    var debounced: [String] = []
    var delayed: [String] = []
    let debouncing = source.stream().debounce(for: .milliseconds(50), clock: clock)
      .subscribe { debounced.append($0) }
    let delaying = source.stream().delay(for: .milliseconds(50), clock: clock)
      .subscribe { delayed.append($0) }
    #expect(debounced == [] && delayed == [])
    await clock.advance(by: .milliseconds(50))
    #expect(debounced == ["ready"] && delayed == ["ready"])
    #expect(debounced == ["ready"])
    #expect(delayed == ["ready"])
    debouncing.unsubscribe()
    delaying.unsubscribe()
  }
}
