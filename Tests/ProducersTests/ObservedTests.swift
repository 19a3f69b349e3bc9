import Dispatch
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

/// A model confined to one serial queue, as the stream's contract asks: every read and write of
/// it happens in `run`.
private final class Confined: @unchecked Sendable {
  // `player` is touched only on `queue`.
  let queue = DispatchQueue(label: "ObservedTests.model")
  let player = Player()

  func run<R>(_ body: (Player) -> R) -> R {
    queue.sync { body(player) }
  }

  /// Waits until every block queued so far, the stream's re-reads included, has run.
  func drain() {
    queue.sync {}
    queue.sync {}
  }
}

@Suite(.checksLiveResources) struct ObservedTests {
  @Test func theCurrentValueArrivesDuringSubscribeThenEachChangeOnTheQueue() {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run { player in
      let subscription = Observed.values(\.score, of: player, on: model.queue).subscribe {
        dispatchPrecondition(condition: .onQueue(model.queue))
        seen.record($0)
      }
      #expect(seen.values == [0])  // synchronous, before subscribe returned
      return subscription
    }
    model.run { $0.score = 1 }
    model.drain()
    model.run { $0.score = 2 }
    model.drain()
    #expect(seen.values == [0, 1, 2])
    subscription.unsubscribe()
  }

  @Test func changesMadeInOneTurnOfTheQueueArriveOnceAsTheLatestValue() {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0, on: model.queue).subscribe(seen.record)
    }
    model.run { player in
      player.score = 1
      player.score = 2
      player.score = 3
    }
    model.drain()
    #expect(seen.values == [0, 3])
    subscription.unsubscribe()
  }

  @Test func changesToOtherPropertiesAreNotDelivered() {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0, on: model.queue).subscribe(seen.record)
    }
    model.run { $0.name = "grace" }
    model.drain()
    #expect(seen.values == [0])
    subscription.unsubscribe()
  }

  @Test func aKeyPathThroughNestedObservablesTracksEveryStep() {
    let model = Confined()
    let seen = Recorder<String?>()
    let subscription = model.run {
      Observed.values(\.team?.title, of: $0, on: model.queue).subscribe(seen.record)
    }
    let blue = Team()
    model.run { $0.team = blue }
    model.drain()
    model.run { _ in blue.title = "green" }
    model.drain()
    model.run { $0.team = nil }
    model.drain()
    #expect(seen.values == [nil, "blue", "green", nil])
    subscription.unsubscribe()
  }

  @Test func unsubscribeStopsDeliveryAndTracking() {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0, on: model.queue).subscribe(seen.record)
    }
    model.run { $0.score = 1 }
    model.drain()
    subscription.unsubscribe()
    model.run { $0.score = 2 }
    model.drain()
    model.run { $0.score = 3 }
    model.drain()
    #expect(seen.values == [0, 1])
  }

  @Test func unsubscribeBetweenAChangeAndItsReadDeliversNothing() {
    let model = Confined()
    let seen = Recorder<Int>()
    let subscription = model.run {
      Observed.values(\.score, of: $0, on: model.queue).subscribe(seen.record)
    }
    model.run { player in
      player.score = 1  // schedules the read on the queue, after this block
      subscription.unsubscribe()
    }
    model.drain()
    #expect(seen.values == [0])
  }

  @Test func droppingTheSubscriptionKeepsDelivering() {
    let model = Confined()
    let seen = Recorder<Int>()
    model.run { _ = Observed.values(\.score, of: $0, on: model.queue).subscribe(seen.record) }
    model.run { $0.score = 5 }
    model.drain()
    model.run { $0.score = 6 }
    model.drain()
    #expect(seen.values == [0, 5, 6])
  }

  @Test func aDroppedSubscriptionIsReleasedWithItsObject() {
    let queue = DispatchQueue(label: "ObservedTests.dropped")
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    weak var weakPlayer: Player?
    queue.sync {
      let player = Player()
      weakPlayer = player
      let captured = Captured()
      weakCaptured = captured
      // Attach and forget: the subscription is dropped, not ended.
      _ = Observed.values(\.score, of: player, on: queue).subscribe { _ in _ = captured }
    }
    queue.sync {}
    #expect(weakPlayer == nil)
    #expect(weakCaptured == nil, "the subscriber's closure outlived its object")
  }

  @Test func aSubscriptionDoesNotKeepTheObjectAlive() {
    let queue = DispatchQueue(label: "ObservedTests.lifetime")
    weak var weakPlayer: Player?
    let seen = Recorder<Int>()
    let subscription: Subscription = queue.sync {
      let player = Player()
      weakPlayer = player
      return Observed.values(\.score, of: player, on: queue).subscribe(seen.record)
    }
    queue.sync {}
    #expect(weakPlayer == nil)
    #expect(seen.values == [0])
    subscription.unsubscribe()  // still safe
  }

  @Test func aLeftoverRegistrationKeepsNothingAliveAfterUnsubscribe() {
    let model = Confined()
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    let subscription: Subscription = model.run { player in
      let captured = Captured()
      weakCaptured = captured
      return Observed.values(\.score, of: player, on: model.queue).subscribe { _ in _ = captured }
    }
    #expect(weakCaptured != nil)
    subscription.unsubscribe()
    // Observation still holds the one registration until the next change, but it no longer
    // reaches the handler.
    #expect(weakCaptured == nil)
  }

  @Test func manySubscribersOnManyThreadsSeeTheLatestValue() {
    let model = Confined()
    let recorders = (0..<8).map { _ in Recorder<Int>() }
    let subscriptions = Locked<[Subscription]>([])
    DispatchQueue.concurrentPerform(iterations: recorders.count) { i in
      let subscription = model.run {
        Observed.values(\.score, of: $0, on: model.queue).subscribe(recorders[i].record)
      }
      subscriptions.mutate { $0.append(subscription) }
      model.run { $0.score += 1 }
    }
    model.drain()
    for recorder in recorders {
      #expect(recorder.values.last == recorders.count)
      #expect(recorder.values == recorder.values.sorted())
    }
    subscriptions.mutate { all in
      for subscription in all { subscription.unsubscribe() }
    }
  }

  @Test @MainActor func aMainActorModelIsDeliveredOnTheMainQueue() async {
    let model = ScoreBoard()
    let seen = Recorder<Int>()
    let subscription = Observed.values(\.points, of: model).subscribe { value in
      MainActor.preconditionIsolated()
      seen.record(value)
    }
    #expect(seen.values == [0])
    model.points = 7
    #expect(seen.values == [0])  // delivered on the main queue's next turn, not during the set
    let arrived = await Task.detached { seen.wait(forCount: 2) }.value
    #expect(arrived)
    #expect(seen.values == [0, 7])
    subscription.unsubscribe()
  }

  @Test func aBagEndsEveryStreamOfOneObjectAndNoOther() {
    let model = Confined()
    let other = Player()
    let bag = SubscriptionBag()
    let seen = Recorder<String>()
    model.run { player in
      bag.subscribe(to: Observed.values(\.score, of: player, on: model.queue)) {
        seen.record("score \($0)")
      }
      bag.subscribe(to: Observed.values(\.name, of: player, on: model.queue)) {
        seen.record("name \($0)")
      }
      bag.subscribe(to: Observed.values(\.score, of: other, on: model.queue)) {
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
    model.drain()
    #expect(seen.values == ["score 0", "name ada", "other 0", "other 2"])
    bag.unsubscribeAll()
  }
}

@MainActor @Observable private final class ScoreBoard {
  var points = 0
}
