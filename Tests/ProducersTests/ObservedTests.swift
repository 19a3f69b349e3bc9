import IndefiniteObservable
import Multicast
import Observation
import Producers
import TestSupport
import Testing

@Observable private final class Player {
  var score = 0
  var name = "ada"
  var team: Team?
}

@Observable private final class Team {
  var title = "blue"
}

/// A model on the main actor, where the tests run and the streams deliver: every read and
/// write of it happens there.
@MainActor private final class Confined {
  let player = Player()

  func run<R>(_ body: (Player) -> R) -> R {
    body(player)
  }

  /// Waits until the stream's re-reads scheduled so far have run on the main actor (they are
  /// main-actor jobs, which run in the order they were scheduled).
  func drain() async {
    for _ in 0..<2 { await Task { @MainActor in }.value }
  }
}

/// An actor of its own that owns a model, makes a stream of it and changes it.
private actor Scorer {
  private let player = Player()
  private var subscription: Subscription?
  private(set) var seen: [Int] = []

  func start() {
    subscription = Observed.values(\.score, of: player).subscribe { score in
      self.assertIsolated()  // read and delivered on this actor
      self.seen.append(score)
    }
  }

  func score(_ points: Int) {
    player.score = points
  }

  func stop() {
    subscription?.unsubscribe()
  }
}

@MainActor @Suite(.checksLiveResources) struct ObservedTests {
  @Test func theCurrentValueArrivesDuringSubscribeThenEachChangeOnTheActor() async throws {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run { player in
      let subscription = Observed.values(\.score, of: player).subscribe {
        MainActor.assertIsolated()
        seen.record($0)
      }
      #expect(seen.values == [0])  // synchronous, before subscribe returned
      return subscription
    }
    model.run { $0.score = 1 }
    await model.drain()
    model.run { $0.score = 2 }
    await model.drain()
    #expect(seen.values == [0, 1, 2])
    subscription.unsubscribe()
  }

  @Test func changesArriveWithTheValueBeforeThemBesideTheValueAfter() async throws {
    let model = Confined()
    let seen = Recorder<String>()
    let subscription = model.run {
      Observed.changes(\.score, of: $0).subscribe { seen.record("\($0.old)->\($0.new)") }
    }
    #expect(seen.values == [])  // nothing at subscription: no change yet
    model.run { $0.score = 1 }
    await model.drain()
    model.run { player in
      player.score = 2
      player.score = 3
    }
    await model.drain()
    #expect(seen.values == ["0->1", "1->3"])
    subscription.unsubscribe()
    model.run { $0.score = 4 }
    await model.drain()
    #expect(seen.values == ["0->1", "1->3"])
  }

  @Test func changesOfAnOptionalKeyPathCarryNilOldValues() async throws {
    let model = Confined()
    let seen = Recorder<String>()
    let subscription = model.run {
      Observed.changes(\.team?.title, of: $0).subscribe {
        seen.record("\($0.old ?? "none")->\($0.new ?? "none")")
      }
    }
    model.run { $0.team = Team() }
    await model.drain()
    model.run { $0.team = nil }
    await model.drain()
    #expect(seen.values == ["none->blue", "blue->none"])
    subscription.unsubscribe()
  }

  @Test func changesMadeInOneTurnOfTheActorArriveOnceAsTheLatestValue() async throws {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0).subscribe(seen.record)
    }
    model.run { player in
      player.score = 1
      player.score = 2
      player.score = 3
    }
    await model.drain()
    #expect(seen.values == [0, 3])
    subscription.unsubscribe()
  }

  @Test func changesToOtherPropertiesAreNotDelivered() async throws {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0).subscribe(seen.record)
    }
    model.run { $0.name = "grace" }
    await model.drain()
    #expect(seen.values == [0])
    subscription.unsubscribe()
  }

  @Test func aKeyPathThroughNestedObservablesTracksEveryStep() async throws {
    let model = Confined()
    let seen = Recorder<String?>()
    let subscription = model.run {
      Observed.values(\.team?.title, of: $0).subscribe(seen.record)
    }
    let blue = Team()
    model.run { $0.team = blue }
    await model.drain()
    model.run { _ in blue.title = "green" }
    await model.drain()
    model.run { $0.team = nil }
    await model.drain()
    #expect(seen.values == [nil, "blue", "green", nil])
    subscription.unsubscribe()
  }

  @Test func unsubscribeStopsDeliveryAndTracking() async throws {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0).subscribe(seen.record)
    }
    model.run { $0.score = 1 }
    await model.drain()
    subscription.unsubscribe()
    model.run { $0.score = 2 }
    await model.drain()
    model.run { $0.score = 3 }
    await model.drain()
    #expect(seen.values == [0, 1])
  }

  @Test func unsubscribeBetweenAChangeAndItsReadDeliversNothing() async throws {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0).subscribe(seen.record)
    }
    model.run { player in
      player.score = 1  // schedules the read on the actor, after this code
      subscription.unsubscribe()
    }
    await model.drain()
    #expect(seen.values == [0])
  }

  @Test func droppingTheSubscriptionKeepsDelivering() async throws {
    let model = Confined()
    let seen = Recorder<Int>()
    model.run { _ = Observed.values(\.score, of: $0).subscribe(seen.record) }
    model.run { $0.score = 5 }
    await model.drain()
    model.run { $0.score = 6 }
    await model.drain()
    #expect(seen.values == [0, 5, 6])
  }

  @Test func aDroppedSubscriptionIsReleasedWithItsObject() async throws {
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    weak var weakPlayer: Player?
    do {
      let player = Player()
      weakPlayer = player
      let captured = Captured()
      weakCaptured = captured
      // Attach and forget: the subscription is dropped, not ended.
      _ = Observed.values(\.score, of: player).subscribe { _ in _ = captured }
    }
    await Confined().drain()
    #expect(weakPlayer == nil)
    #expect(weakCaptured == nil, "the subscriber's closure outlived its object")
  }

  @Test func aSubscriptionDoesNotKeepTheObjectAlive() async throws {
    weak var weakPlayer: Player?
    let seen = Recorder<Int>()
    let subscription: Subscription = {
      let player = Player()
      weakPlayer = player
      return Observed.values(\.score, of: player).subscribe(seen.record)
    }()
    await Confined().drain()
    #expect(weakPlayer == nil)
    #expect(seen.values == [0])
    subscription.unsubscribe()  // still safe
  }

  @Test func aLeftoverRegistrationKeepsNothingAliveAfterUnsubscribe() async throws {
    let model = Confined()
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    let subscription: Subscription = model.run { player in
      let captured = Captured()
      weakCaptured = captured
      return Observed.values(\.score, of: player).subscribe { _ in _ = captured }
    }
    #expect(weakCaptured != nil)
    subscription.unsubscribe()
    // Observation still holds the one registration until the next change, but it no longer
    // reaches the handler.
    #expect(weakCaptured == nil)
  }

  @Test func manySubscribersSeeTheLatestValue() async throws {
    let model = Confined()
    let recorders = (0..<8).map { _ in Recorder<Int>() }
    var subscriptions: [Subscription] = []
    for recorder in recorders {
      subscriptions.append(
        model.run { Observed.values(\.score, of: $0).subscribe(recorder.record) })
      model.run { $0.score += 1 }
    }
    await model.drain()
    for recorder in recorders {
      #expect(recorder.values.last == recorders.count)
      #expect(recorder.values == recorder.values.sorted())
    }
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func aModelOnACustomActorIsReadAndDeliveredOnThatActor() async throws {
    let scorer = Scorer()
    await scorer.start()
    await scorer.score(3)
    _ = await eventually { await scorer.seen.count >= 2 }
    await scorer.stop()
    #expect(await scorer.seen == [0, 3])
  }

  @Test func aMainActorModelIsDeliveredOnTheMainActor() async {
    let model = ScoreBoard()
    let seen = Recorder<Int>()
    let subscription = Observed.values(\.points, of: model).subscribe { value in
      MainActor.preconditionIsolated()
      seen.record(value)
    }
    #expect(seen.values == [0])
    model.points = 7
    #expect(seen.values == [0])  // delivered on the main actor's next turn, not during the set
    let arrived = await Task.detached { await seen.arrival(ofCount: 2) }.value
    #expect(arrived)
    #expect(seen.values == [0, 7])
    subscription.unsubscribe()
  }

  @Test func aBagEndsEveryStreamOfOneObjectAndNoOther() async {
    let model = Confined()
    let other = Player()
    let bag = SubscriptionBag()
    let seen = Recorder<String>()
    model.run { player in
      bag.subscribe(to: Observed.values(\.score, of: player)) {
        seen.record("score \($0)")
      }
      bag.subscribe(to: Observed.values(\.name, of: player)) {
        seen.record("name \($0)")
      }
      bag.subscribe(to: Observed.values(\.score, of: other)) {
        seen.record("other \($0)")
      }
    }
    #expect(seen.values == ["score 0", "name ada", "other 0"])
    #expect(bag.count == 3)

    model.run { bag.unsubscribe(from: $0) }
    #expect(bag.count == 1)
    model.run { player in
      player.score = 1
      player.name = "grace"
      other.score = 2
    }
    await model.drain()
    #expect(seen.values == ["score 0", "name ada", "other 0", "other 2"])
    bag.unsubscribeAll()
  }
}

@MainActor @Observable private final class ScoreBoard {
  var points = 0
}
