import Dispatch
import IndefiniteObservable
import TestSupport
import Testing

@testable import Multicast

extension Topic where Payload == Int {
  fileprivate static var score: Topic { Topic("score") }
}

/// An object that sends events; it holds nothing.
private final class Player: Sendable {}

/// A payload or a capture that tests watch through a weak reference.
private final class Watched: Sendable {}

/// The bus's channels: one per topic for every sender, one per (topic, sender) pair, each a
/// multicast source that a publish finds by lookup, and that leaves the bus when nothing needs it.
@MainActor @Suite(.checksLiveResources) struct TopicBusChannelTests {
  @Test func aLimitOfOneOnOneSendersSourceIsNotUsedUpByAnotherSender() {
    let bus = TopicBus()
    let mine = Player()
    let other = Player()
    let seen = Recorder<Int>()
    let source = bus.source(for: .score, from: mine)
    source.subscribe(on: .sendingThread, limit: 1) { seen.record($0.payload) }
    bus.publish(.score, 1, from: other)
    bus.publish(.score, 2)
    bus.publish(.score, 3, from: mine)
    bus.publish(.score, 4, from: mine)
    #expect(seen.values == [3])
    // One send reached the channel: not the other sender's nor the senderless one, and the
    // publish of 4 found it without a subscriber.
    #expect(source.sendCount == 1)
    #expect(source.subscriberCount == 0)
  }

  @Test func aPublishReachesEverySendersSubscribersThenItsSendersOnly() {
    let bus = TopicBus()
    let mine = Player()
    let other = Player()
    let seen = Recorder<String>()
    bus.source(for: .score, from: mine).subscribe { seen.record("mine \($0.payload)") }
    bus.source(for: .score).subscribe { seen.record("every \($0.payload)") }
    bus.source(for: .score, from: other).subscribe { seen.record("other \($0.payload)") }
    bus.publish(.score, 1, from: mine)
    bus.publish(.score, 2)
    #expect(seen.values == ["every 1", "mine 1", "every 2"])
    #expect(bus.source(for: .score, from: other).sendCount == 0)
  }

  @Test func sourcesOfOneChannelAreOneSource() {
    let bus = TopicBus()
    let player = Player()
    let first = bus.source(for: .score, from: player)
    let second = bus.source(for: .score, from: player)
    let subscriptions = [first.subscribe { _ in }, second.subscribe { _ in }]
    #expect(first.subscriberCount == 2)
    #expect(second.subscriberCount == 2)
    #expect(bus.source(for: .score).subscriberCount == 0)
    bus.unsubscribe(player)  // ends no subscription: none is bound to the player
    #expect(first.subscriberCount == 2)
    for subscription in subscriptions { subscription.unsubscribe() }
    #expect(bus.heldChannelCount == 0)
  }

  @Test func aChannelLeavesTheBusWhenItsLastSubscriberEnds() {
    let bus = TopicBus()
    let player = Player()
    let first = bus.source(for: .score, from: player).subscribe { _ in }
    bus.source(for: .score, from: player).subscribe(limit: 1) { _ in }
    #expect(bus.heldChannelCount == 1)
    bus.publish(.score, 1, from: player)  // the limited subscription ends
    #expect(bus.heldChannelCount == 1)
    first.unsubscribe()
    #expect(bus.heldChannelCount == 0)
    #expect(bus.channelCount == 0)
  }

  @Test func aSendersChannelLeavesTheBusWhenTheSenderIsDeallocated() {
    let bus = TopicBus()
    weak var weakPlayer: Player?
    weak var weakCaptured: Watched?
    let seen = Recorder<Int>()
    let subscription: SendableSubscription
    do {
      let player = Player()
      let captured = Watched()
      weakPlayer = player
      weakCaptured = captured
      subscription = bus.source(for: .score, from: player).subscribe { event in
        withExtendedLifetime(captured) { seen.record(event.payload) }
      }
      bus.publish(.score, 1, from: player)
      #expect(bus.channelCount == 1)
    }
    #expect(weakPlayer == nil)
    #expect(bus.channelCount == 0)  // swept: the subscription ended, its handler released
    #expect(weakCaptured == nil)
    bus.publish(.score, 2, from: Player())
    #expect(seen.values == [1])
    subscription.unsubscribe()  // harmless
  }

  @Test func aSourceKeptAcrossItsChannelsRemovalStillWorks() {
    let bus = TopicBus()
    let player = Player()
    let seen = Recorder<String>()
    let kept = bus.source(for: .score, from: player)
    kept.subscribe(limit: 1) { seen.record("first \($0.payload)") }
    bus.publish(.score, 1, from: player)
    #expect(bus.heldChannelCount == 0)  // no subscriber left: the bus holds the channel no more
    // A source asked for meanwhile is the same channel, subscribed through either.
    bus.source(for: .score, from: player).subscribe(limit: 1) { seen.record("other \($0.payload)") }
    let keptSubscription = kept.subscribe { seen.record("kept \($0.payload)") }
    bus.publish(.score, 2, from: player)
    bus.publish(.score, 3, from: player)
    #expect(seen.values == ["first 1", "other 2", "kept 2", "kept 3"])
    keptSubscription.unsubscribe()
    #expect(bus.heldChannelCount == 0)
  }

  @Test func aSourceSubscribedAfterItsSenderIsGoneDeliversNothingAndKeepsNothing() {
    let bus = TopicBus()
    let source: ReadOnlySource<SendableEmitter<TopicEvent<Int>>>
    weak var weakPlayer: Player?
    do {
      let player = Player()
      weakPlayer = player
      source = bus.source(for: .score, from: player)
    }
    #expect(weakPlayer == nil)
    weak var weakCaptured: Watched?
    let seen = Recorder<Int>()
    do {
      let captured = Watched()
      weakCaptured = captured
      source.subscribe { event in withExtendedLifetime(captured) { seen.record(event.payload) } }
    }
    #expect(weakCaptured == nil)  // ended at once
    #expect(source.subscriberCount == 0)
    bus.publish(.score, 1, from: Player())
    #expect(seen.values.isEmpty)
    #expect(bus.channelCount == 0)
  }

  /// Channels filed and let go of by eight threads at once, as their subscribers come and go:
  /// a subscriber present when a publish begins receives it, whichever thread's change of the
  /// count the bus hears last.
  @Test func aSubscriberPresentWhenAPublishBeginsReceivesItWhileOthersComeAndGo() {
    let bus = TopicBus()
    let player = Player()
    let missed = Recorder<Int>()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for round in 0..<300 {
        let payload = thread * 1_000 + round
        let heard = Recorder<Int>()
        let subscription = bus.source(for: .score, from: round.isMultiple(of: 2) ? player : nil)
          .subscribe(on: .sendingThread) { heard.record($0.payload) }
        bus.publish(.score, payload, from: player)
        subscription.unsubscribe()
        if !heard.values.contains(payload) { missed.record(payload) }
      }
    }
    #expect(missed.values.isEmpty)
    #expect(bus.heldChannelCount == 0)
    #expect(bus.channelCount == 0)
  }

  @Test func theBusDoesNotGrowWithOneOffSendersAndTopics() {
    let bus = TopicBus()
    for round in 0..<500 {
      let player = Player()
      let topic = Topic<Int>("one-off \(round)")
      bus.source(for: topic, from: player).subscribe(limit: 1) { _ in }
      bus.source(for: topic).subscribe(limit: 1) { _ in }
      bus.publish(topic, round, from: player)
      _ = bus.source(for: .score, from: player)  // a source never subscribed
    }
    #expect(bus.heldChannelCount == 0)
    // Filing sweeps once the count has doubled since the last sweep: never far above 32.
    #expect(bus.table.withLock { $0.count } <= 64)
    #expect(bus.channelCount == 0)
  }
}
