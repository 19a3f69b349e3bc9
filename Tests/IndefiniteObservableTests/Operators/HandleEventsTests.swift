import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct HandleEventsTests {
  @Test func runsTheSideEffectsAroundTheStreamsEvents() {
    let source = CallbackSource<Int>()
    var log: [String] = []
    let stream = source.stream.handleEvents(
      receiveSubscription: { log.append("subscribe, \(source.observerCount) connected") },
      receiveOutput: { log.append("value \($0)") },
      receiveCancel: { log.append("cancel, \(source.observerCount) connected") })
    let subscription = stream.subscribe { log.append("received \($0)") }
    source.emit(1)
    subscription.unsubscribe()
    subscription.unsubscribe()
    #expect(
      log == [
        "subscribe, 0 connected", "value 1", "received 1", "cancel, 1 connected",
      ])
    #expect(source.observerCount == 0)
  }

  @Test func theSubscriptionEffectComesBeforeTheValuesSentWhileConnecting() {
    var log: [String] = []
    let subscription = SynchronousSource([1]).stream
      .handleEvents(
        receiveSubscription: { log.append("subscribe") }, receiveOutput: { log.append("\($0)") }
      )
      .subscribe { _ in }
    #expect(log == ["subscribe", "1"])
    subscription.unsubscribe()
  }

  @Test func everyEffectIsOptional() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.handleEvents().subscribe { seen.append($0) }
    source.emit(1)
    subscription.unsubscribe()
    #expect(seen == [1])
    #expect(source.observerCount == 0)
  }

  @Test func anOperatorBelowThatEndsItsUpstreamRunsTheCancelEffect() {
    let source = CallbackSource<Int>()
    var cancels = 0
    let subscription = source.stream.handleEvents(receiveCancel: { cancels += 1 }).prefix(1)
      .subscribe { _ in }
    source.emit(1)
    #expect(cancels == 1)
    subscription.unsubscribe()
    #expect(cancels == 1)
  }

  @Test func unsubscribingFromInsideADeliveryRunsTheCancelEffectOnce() {
    let source = CallbackSource<Int>()
    var log: [String] = []
    var subscription: Subscription?
    subscription = source.stream
      .handleEvents(
        receiveOutput: { log.append("value \($0)") }, receiveCancel: { log.append("cancel") }
      )
      .subscribe { _ in subscription?.unsubscribe() }
    source.emit(1)
    source.emit(2)
    #expect(log == ["value 1", "cancel"])
    #expect(source.observerCount == 0)
  }

  @Test func eachSubscriptionRunsItsOwnEffects() {
    let source = CallbackSource<Int>()
    var subscribes = 0
    var cancels = 0
    let stream = source.stream.handleEvents(
      receiveSubscription: { subscribes += 1 }, receiveCancel: { cancels += 1 })
    let a = stream.subscribe { _ in }
    let b = stream.subscribe { _ in }
    a.unsubscribe()
    #expect(subscribes == 2 && cancels == 1)
    b.unsubscribe()
    #expect(cancels == 2)
  }
}
