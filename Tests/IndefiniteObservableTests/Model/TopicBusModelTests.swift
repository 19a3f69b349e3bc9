import IndefiniteObservable
import TestSupport
import Testing

@testable import Multicast

/// Random scripts of subscribing (plain, filtered by sender, `limit: 1`, owner-bound, and through
/// `stream()`, each to `source(for:from:)`), publishing with and without a sender, every way of unsubscribing, owners
/// and senders let go of, and reactions from handlers (subscribing, unsubscribing, publishing on
/// another topic), run on a fresh `TopicBus` and on ``BusModel``, a plain rendering of what
/// `TopicBus`'s documentation promises. After every step they must agree on every delivery, in
/// order (payload, topic, sender, and owner passed to the handler), and on which handlers the
/// bus must still keep or must have released.
///
/// The scripts are seeded: a failure names the case and the run's seed (`RANDOM_SEED`), and
/// prints the script cut down to the steps that still make it fail.
@MainActor @Suite(.checksLiveResources) struct TopicBusModelTests {
  /// How many random scripts run.
  static let scripts = 3000
  /// The case number of the first script, far from those of the other randomized tests so that
  /// the scripts do not share seeds with them.
  static let firstCase = 1_000_000

  /// Every random script delivers exactly what the model expects, in order.
  @Test func randomScriptsBehaveLikeTheModel() async {
    for index in Self.firstCase..<(Self.firstCase + Self.scripts) {
      // A few seconds of scripts on the main actor: let the tests running beside, whose
      // deliveries wait for it, have it between them.
      await Task.yield()
      var generator = SeededGenerator(seed: SeededGenerator.seed(ofCase: index))
      let script = BusScript.random(using: &generator)
      guard script.firstDisagreement() != nil else { continue }
      let shrunk = script.shrunk()
      let disagreement = shrunk.firstDisagreement()!
      let steps = shrunk.steps.prefix(disagreement.step + 1).enumerated().map { "  \($0): \($1)" }
      Issue.record(
        """
        TopicBus disagrees with the model, \(SeededGenerator.replayHint(case: index)).
        The script (\(shrunk.setting)), cut down to \(steps.count) of its \
        \(script.steps.count) steps:
        \(steps.joined(separator: "\n"))
        (#n is the subscription made n-th, counting those made by handlers.)
        \(disagreement.what)
        """)
      return
    }
  }

  /// The model is not a copy of the implementation: it says what the documentation says, here
  /// that a subscriber added during a publish does not receive it, that a source of one sender
  /// carries only that sender's events, after every sender's subscribers, and that `limit: 1`
  /// takes the next of them only.
  @Test func theModelFollowsTheDocumentation() {
    let script = BusScript(
      topics: 2, owners: 1, senders: 2,
      steps: [
        .subscribe(BusSubscription(topic: 0, reaction: .subscribe(BusSubscription(topic: 0)))),
        .subscribe(BusSubscription(topic: 0, sender: 0, owner: 0, once: true)),
        .publish(BusPublication(topic: 0, payload: 1, sender: nil)),
        .publish(BusPublication(topic: 0, payload: 2, sender: 1)),
        .publish(BusPublication(topic: 0, payload: 3, sender: 0)),
        .publish(BusPublication(topic: 0, payload: 4, sender: 0)),
      ])
    #expect(script.firstDisagreement() == nil)
    let model = BusModel(script)
    for step in script.steps { model.perform(step) }
    #expect(
      model.log == [
        "#0 <- 1 on a",
        "#0 <- 2 on a from s1", "#2 <- 2 on a from s1",
        "#0 <- 3 on a from s0", "#2 <- 3 on a from s0", "#1 <- 3 on a from s0 to o0",
        "#0 <- 4 on a from s0", "#2 <- 4 on a from s0",
      ])
  }
}

/// The names a script's topics have: `a`, `b`, `c`.
private let topicNames = ["a", "b", "c"]

/// How one subscription is made. Topics, senders and owners are picked by number; a
/// subscription that names a sender or an owner already let go of is not made.
private struct BusSubscription: CustomStringConvertible {
  /// The topic subscribed to.
  var topic: Int
  /// The sender filter (`from:`), if any.
  var sender: Int?
  /// The owner the subscription is bound to, if any.
  var owner: Int?
  /// Whether the subscription takes only the next matching event (`limit: 1`).
  var once = false
  /// Whether it is made by subscribing to `stream()` (no owner, not `once`).
  var viaStream = false
  /// What the handler does on its first delivery, if anything.
  var reaction: BusStep?

  /// The subscription as a script prints it.
  var description: String {
    var parts = ["to \(topicNames[topic])"]
    if viaStream { parts.append("via stream()") }
    if let sender { parts.append("from s\(sender)") }
    if let owner { parts.append("owned by o\(owner)") }
    if once { parts.append("once") }
    if let reaction { parts.append("then on its first event: \(reaction)") }
    return parts.joined(separator: " ")
  }
}

/// One publish: a topic, an `Int` payload, and an optional sender (by number).
private struct BusPublication: CustomStringConvertible {
  /// The topic published on.
  var topic: Int
  /// The payload.
  var payload: Int
  /// The sender named, if any; a publish from a sender already let go of is not made.
  var sender: Int?

  /// The publish as a script prints it.
  var description: String {
    "\(payload) on \(topicNames[topic])" + (sender.map { " from s\($0)" } ?? "")
  }
}

/// One step of a script, or what a handler does on its first event. Subscriptions are numbered
/// in the order they are made (reactions included); a number not made yet does nothing.
private indirect enum BusStep: CustomStringConvertible {
  /// Subscribes as described.
  case subscribe(BusSubscription)
  /// Publishes. From a handler, only while no other handler's publish is under way, so that
  /// no topic is ever published on inside a publish on itself.
  case publish(BusPublication)
  /// `Subscription.unsubscribe()` of subscription number `n`.
  case unsubscribe(Int)
  /// `unsubscribe(owner, from: topic)`.
  case unsubscribeOwner(Int, topic: Int)
  /// `unsubscribe(owner)`.
  case unsubscribeAll(Int)
  /// The script lets go of owner number `n`, which must then be deallocated.
  case dropOwner(Int)
  /// The script lets go of sender number `n`, which must then be deallocated.
  case dropSender(Int)
  /// Unsubscribes every subscription made; the runner appends it to every script.
  case unsubscribeEverything

  /// The step as a script prints it.
  var description: String {
    switch self {
    case .subscribe(let subscription): "subscribe \(subscription)"
    case .publish(let publication): "publish \(publication)"
    case .unsubscribe(let number): "unsubscribe #\(number)"
    case .unsubscribeOwner(let owner, let topic):
      "unsubscribe(o\(owner), from: \(topicNames[topic]))"
    case .unsubscribeAll(let owner): "unsubscribeAll(o\(owner))"
    case .dropOwner(let owner): "let go of o\(owner)"
    case .dropSender(let sender): "let go of s\(sender)"
    case .unsubscribeEverything: "unsubscribe every subscription"
    }
  }
}

/// Where the bus and the model first disagree.
private struct BusDisagreement {
  /// The index of the step after which they disagreed.
  let step: Int
  /// The deliveries in common and where they part.
  let what: String
}

/// A random case: how many topics, owners and senders, and the steps.
private struct BusScript {
  /// How many `Topic<Int>` values, with distinct names.
  var topics: Int
  /// How many owner objects.
  var owners: Int
  /// How many sender objects.
  var senders: Int
  /// The steps, in order.
  var steps: [BusStep]

  /// The topics, owners and senders, as a failure prints them.
  var setting: String {
    "topics \(topicNames.prefix(topics).joined(separator: ", ")); "
      + "owners o0..o\(owners - 1); senders s0..s\(senders - 1)"
  }

  /// A script of 20 to 60 steps over 2 or 3 topics and 1 to 3 owners and senders, naming only
  /// owners and senders not let go of yet.
  static func random(using generator: inout SeededGenerator) -> BusScript {
    var script = BusScript(
      topics: 2 + generator.below(2), owners: 1 + generator.below(3),
      senders: 1 + generator.below(3), steps: [])
    var owners = Array(0..<script.owners)
    var senders = Array(0..<script.senders)
    var subscriptions = 0
    for _ in 0..<(20 + generator.below(41)) {
      let roll = generator.below(100)
      let step: BusStep
      switch roll {
      case ..<30:
        subscriptions += 1
        step = .subscribe(
          script.randomSubscription(
            owners: owners, senders: senders, reacting: generator.oneIn(4), using: &generator))
      case ..<65:
        step = .publish(script.randomPublication(senders: senders, using: &generator))
      case ..<77:
        step = .unsubscribe(generator.below(subscriptions + 2))
      case ..<84 where !owners.isEmpty:
        step = .unsubscribeOwner(generator.pick(owners), topic: generator.below(script.topics))
      case ..<88 where !owners.isEmpty:
        step = .unsubscribeAll(generator.pick(owners))
      case ..<94 where !owners.isEmpty:
        let owner = generator.pick(owners)
        owners.removeAll { $0 == owner }
        step = .dropOwner(owner)
      case ..<100 where !senders.isEmpty:
        let sender = generator.pick(senders)
        senders.removeAll { $0 == sender }
        step = .dropSender(sender)
      default:
        step = .publish(script.randomPublication(senders: senders, using: &generator))
      }
      script.steps.append(step)
    }
    return script
  }

  /// A subscription to a random topic, naming live owners and senders only; with a reaction
  /// when `reacting`.
  private func randomSubscription(
    owners: [Int], senders: [Int], reacting: Bool, using generator: inout SeededGenerator
  ) -> BusSubscription {
    var subscription = BusSubscription(topic: generator.below(topics))
    subscription.viaStream = generator.oneIn(6)
    if !senders.isEmpty && generator.oneIn(3) { subscription.sender = generator.pick(senders) }
    if !subscription.viaStream {
      if !owners.isEmpty && generator.oneIn(2) { subscription.owner = generator.pick(owners) }
      subscription.once = generator.oneIn(3)
    }
    guard reacting else { return subscription }
    switch generator.below(5) {
    case 0:
      subscription.reaction = .subscribe(
        randomSubscription(owners: owners, senders: senders, reacting: false, using: &generator))
    case 1:
      // Never on its own topic: what `once` means for a publish nested in a publish on the
      // same topic is not documented.
      var publication = randomPublication(senders: senders, using: &generator)
      publication.topic = (subscription.topic + 1 + generator.below(topics - 1)) % topics
      subscription.reaction = .publish(publication)
    case 2 where !owners.isEmpty:
      subscription.reaction = .unsubscribeOwner(
        generator.pick(owners), topic: generator.below(topics))
    case 3 where !owners.isEmpty:
      subscription.reaction = .unsubscribeAll(generator.pick(owners))
    default:
      subscription.reaction = .unsubscribe(generator.below(8))
    }
    return subscription
  }

  /// A publish on a random topic, from a live sender or none.
  private func randomPublication(
    senders: [Int], using generator: inout SeededGenerator
  ) -> BusPublication {
    BusPublication(
      topic: generator.below(topics), payload: generator.below(100),
      sender: senders.isEmpty || generator.oneIn(3) ? nil : generator.pick(senders))
  }

  /// Runs the script, then unsubscribes everything and publishes once more on every topic,
  /// on a real bus and on the model, step by step; where they first disagree, if they do.
  @MainActor func firstDisagreement() -> BusDisagreement? {
    let real = RealBus(self)
    let model = BusModel(self)
    var ending: [BusStep] = [.unsubscribeEverything]
    for topic in 0..<topics {
      ending.append(.publish(BusPublication(topic: topic, payload: -1, sender: nil)))
      for sender in 0..<senders {
        ending.append(.publish(BusPublication(topic: topic, payload: -1, sender: sender)))
      }
    }
    defer { real.perform(.unsubscribeEverything) }
    for (index, step) in (steps + ending).enumerated() {
      real.perform(step)
      model.perform(step)
      if let difference = busDifference(real.log, model.log) {
        return BusDisagreement(step: min(index, steps.count), what: difference)
      }
      for number in model.subscribers.indices {
        guard let kept = model.keepsHandler(number), kept != real.keepsHandler(number) else {
          continue
        }
        return BusDisagreement(
          step: min(index, steps.count),
          what: """
            The bus \(kept ? "has released" : "still keeps") the handler of #\(number); the \
            model expects it \(kept ? "kept" : "released").
            """)
      }
    }
    return nil
  }

  /// The script with as many steps removed as can be while the bus and the model still
  /// disagree: removing steps one at a time, from the end, until no single removal keeps it
  /// failing.
  @MainActor func shrunk() -> BusScript {
    var script = self
    var removedOne = true
    while removedOne {
      removedOne = false
      var index = script.steps.count - 1
      while index >= 0 {
        var candidate = script
        candidate.steps.remove(at: index)
        if candidate.firstDisagreement() != nil {
          script = candidate
          removedOne = true
        }
        index -= 1
      }
    }
    return script
  }
}

/// The first difference between two logs, with the deliveries before it.
private func busDifference(_ real: [String], _ model: [String]) -> String? {
  guard real != model else { return nil }
  let common = zip(real, model).prefix { $0 == $1 }.count
  let context = real[..<common].suffix(8).joined(separator: ", ")
  return """
    After \(common) deliveries in common (… \(context)):
    the bus did:       \(busEvents(real[common...]))
    the model expects: \(busEvents(model[common...]))
    """
}

/// The first few of `lines`, or "nothing".
private func busEvents(_ lines: ArraySlice<String>) -> String {
  lines.isEmpty ? "nothing" : lines.prefix(5).joined(separator: ", ")
}

/// One log line: subscription `number` received `payload` on `topic`, naming `sender`, with
/// `owner` passed to its handler.
private func delivery(
  _ number: Int, _ payload: Int, on topic: String, from sender: String?, to owner: String?
) -> String {
  "#\(number) <- \(payload) on \(topic)" + (sender.map { " from \($0)" } ?? "")
    + (owner.map { " to \($0)" } ?? "")
}

/// An owner or a sender: a named object that holds nothing.
private final class BusParty: Sendable {
  /// `o0`, `s1` and so on.
  let name: String

  /// A party called `name`.
  init(_ name: String) {
    self.name = name
  }
}

/// A weak reference to a party.
private struct WeakParty {
  /// The party, while it lives.
  weak var party: BusParty?
}

/// A script run on a real `TopicBus`, logging every handler call.
///
/// `@unchecked Sendable`: handlers capture it, but everything runs on the test's thread, since
/// publishing delivers synchronously.
@MainActor private final class RealBus {
  /// A fresh bus, never the shared one.
  let bus = TopicBus()
  /// The topics, by number.
  let topics: [Topic<Int>]
  /// The owners, by number; nil once let go of.
  var owners: [BusParty?]
  /// The senders, by number; nil once let go of.
  var senders: [BusParty?]
  /// Every subscription made, numbered in order.
  var subscriptions: [Subscription] = []
  /// What each subscription does on its first event; nil once done, or if nothing.
  var reactions: [BusStep?] = []
  /// An object each subscription's handler holds, by subscription number, held weakly here.
  var handlers: [WeakParty] = []
  /// Every handler call, in order, and any party that outlived its last reference.
  var log: [String] = []
  /// How many publishes are under way.
  var depth = 0

  /// A bus with the script's topics, owners and senders.
  init(_ script: BusScript) {
    topics = topicNames.prefix(script.topics).map { Topic<Int>($0) }
    owners = (0..<script.owners).map { BusParty("o\($0)") }
    senders = (0..<script.senders).map { BusParty("s\($0)") }
  }

  /// Performs `step` on the bus.
  func perform(_ step: BusStep) {
    switch step {
    case .subscribe(let subscription):
      subscribe(subscription)
    case .publish(let publication):
      var sender: BusParty?
      if let number = publication.sender {
        guard let alive = senders[number] else { return }
        sender = alive
      }
      depth += 1
      bus.publish(topics[publication.topic], publication.payload, from: sender)
      depth -= 1
    case .unsubscribe(let number):
      if number < subscriptions.count { subscriptions[number].unsubscribe() }
    case .unsubscribeOwner(let number, let topic):
      if let owner = owners[number] { bus.unsubscribe(owner, from: topics[topic]) }
    case .unsubscribeAll(let number):
      if let owner = owners[number] { bus.unsubscribe(owner) }
    case .dropOwner(let number):
      weak let owner = owners[number]
      owners[number] = nil
      if let owner { log.append("\(owner.name) outlived its last reference") }
    case .dropSender(let number):
      weak let sender = senders[number]
      senders[number] = nil
      if let sender { log.append("\(sender.name) outlived its last reference") }
      _ = bus.channelCount  // the sweep that a growing bus makes by itself
    case .unsubscribeEverything:
      for subscription in subscriptions { subscription.unsubscribe() }
    }
  }

  /// Subscribes as `subscription` says, unless it names a party let go of.
  private func subscribe(_ subscription: BusSubscription) {
    var sender: BusParty?
    if let number = subscription.sender {
      guard let alive = senders[number] else { return }
      sender = alive
    }
    var owner: BusParty?
    if let number = subscription.owner {
      guard let alive = owners[number] else { return }
      owner = alive
    }
    let number = subscriptions.count
    let topic = topics[subscription.topic]
    reactions.append(subscription.reaction)
    let handler = BusParty("the handler of #\(number)")
    handlers.append(WeakParty(party: handler))
    let made: Subscription
    if subscription.viaStream {
      made = bus.source(for: topic, from: sender).stream().subscribe { [unowned self] event in
        withExtendedLifetime(handler) { self.received(event, by: number, owner: nil) }
      }
    } else if let owner {
      made = Subscription(
        bus.source(for: topic, from: sender).subscribe(owner, limit: subscription.once ? 1 : nil) {
          [unowned self] owner, event in
          withExtendedLifetime(handler) { self.received(event, by: number, owner: owner) }
        })
    } else {
      made = Subscription(
        bus.source(for: topic, from: sender).subscribe(limit: subscription.once ? 1 : nil) {
          [unowned self] event in
          withExtendedLifetime(handler) { self.received(event, by: number, owner: nil) }
        })
    }
    subscriptions.append(made)
  }

  /// Whether the handler of subscription `number` is still alive.
  func keepsHandler(_ number: Int) -> Bool {
    handlers[number].party != nil
  }

  /// Logs a handler call, then performs the subscription's reaction if it has one left.
  private func received(_ event: TopicEvent<Int>, by number: Int, owner: BusParty?) {
    let sender = event.sender.map { ($0 as? BusParty)?.name ?? "an unknown sender" }
    log.append(
      delivery(number, event.payload, on: event.topic.name, from: sender, to: owner?.name))
    guard let reaction = reactions[number] else { return }
    reactions[number] = nil
    if case .publish = reaction, depth > 1 { return }
    perform(reaction)
  }
}

/// What `TopicBus`'s documentation says a script does, with plain arrays.
///
/// - Subscribers of a topic are called synchronously by every publish on it that begins while
///   they are subscribed: those of every sender's events first, then those of the publish's
///   sender, each in subscription order.
/// - A sender filter lets through only events published by that sender; once the sender is
///   gone, nothing, and the bus's sweep (which the script makes when it lets go of a sender)
///   ends the subscription.
/// - An owner-bound subscription receives nothing once its owner is gone, or once the owner's
///   subscriptions to its topic are ended; its handler is passed the owner.
/// - `limit: 1` (`once`) takes the next event that passes the filter and the owner, then ends.
/// - Once an unsubscribe returns, no handler it removed is called again, even by a publish
///   under way; a subscription made during a publish does not receive it.
private final class BusModel {
  /// A subscription as the model keeps it.
  struct Subscriber {
    /// Which topic, sender filter and owner, by number.
    let topic: Int
    let sender: Int?
    let owner: Int?
    let once: Bool
    /// Whether it was made by subscribing to `stream()`.
    let viaStream: Bool
    /// What the subscriber does on its first event; nil once done, or if nothing.
    var reaction: BusStep?
    /// Whether it is still subscribed.
    var active = true
    /// Whether a publish that reaches it began after its owner was let go of, or the bus swept
    /// after its filtered sender was, which removes it.
    var swept = false
  }

  /// Every subscription made, numbered in order.
  var subscribers: [Subscriber] = []
  /// Whether each owner is still referenced.
  var ownerAlive: [Bool]
  /// Whether each sender is still referenced.
  var senderAlive: [Bool]
  /// The handler calls expected, in order.
  var log: [String] = []
  /// How many publishes are under way.
  var depth = 0

  /// The model of a fresh bus with the script's topics, owners and senders.
  init(_ script: BusScript) {
    ownerAlive = Array(repeating: true, count: script.owners)
    senderAlive = Array(repeating: true, count: script.senders)
  }

  /// Performs `step` on the model.
  func perform(_ step: BusStep) {
    switch step {
    case .subscribe(let subscription):
      if let sender = subscription.sender, !senderAlive[sender] { return }
      if let owner = subscription.owner, !ownerAlive[owner] { return }
      subscribers.append(
        Subscriber(
          topic: subscription.topic, sender: subscription.sender, owner: subscription.owner,
          once: subscription.once, viaStream: subscription.viaStream,
          reaction: subscription.reaction))
    case .publish(let publication):
      if let sender = publication.sender, !senderAlive[sender] { return }
      depth += 1
      publish(publication)
      depth -= 1
    case .unsubscribe(let number):
      if number < subscribers.count { subscribers[number].active = false }
    case .unsubscribeOwner(let owner, let topic):
      guard ownerAlive[owner] else { return }
      for number in subscribers.indices
      where subscribers[number].owner == owner && subscribers[number].topic == topic {
        subscribers[number].active = false
      }
    case .unsubscribeAll(let owner):
      guard ownerAlive[owner] else { return }
      for number in subscribers.indices where subscribers[number].owner == owner {
        subscribers[number].active = false
      }
    case .dropOwner(let owner):
      ownerAlive[owner] = false
    case .dropSender(let sender):
      senderAlive[sender] = false
      for number in subscribers.indices where subscribers[number].sender == sender {
        subscribers[number].swept = true
      }
    case .unsubscribeEverything:
      for number in subscribers.indices { subscribers[number].active = false }
    }
  }

  /// Whether the owner or the filtered sender of `subscriber` was let go of.
  private func isOrphaned(_ subscriber: Subscriber) -> Bool {
    if let sender = subscriber.sender, !senderAlive[sender] { return true }
    if let owner = subscriber.owner, !ownerAlive[owner] { return true }
    return false
  }

  /// Whether the bus must still keep the handler of subscription `number` (true), must have
  /// released it (false), or may do either (nil): it keeps a handler until its subscription
  /// ends, removes one whose owner is gone at the next publish that reaches it, and one whose
  /// filtered sender is gone at the bus's sweep. Streams are left out: their handlers are also
  /// held by the stream's subscription.
  func keepsHandler(_ number: Int) -> Bool? {
    let subscriber = subscribers[number]
    if subscriber.viaStream { return nil }
    if !subscriber.active || subscriber.swept { return false }
    return isOrphaned(subscriber) ? nil : true
  }

  /// Delivers `publication` to the subscribers present when it begins: every sender's, then
  /// the publication's sender's.
  private func publish(_ publication: BusPublication) {
    let senders: [Int?] = [nil] + (publication.sender.map { [$0] } ?? [])
    let present = senders.flatMap { sender in
      subscribers.indices.filter {
        subscribers[$0].active && subscribers[$0].topic == publication.topic
          && subscribers[$0].sender == sender
      }
    }
    for number in present {
      let subscriber = subscribers[number]
      guard subscriber.active else { continue }
      if isOrphaned(subscriber) {
        subscribers[number].swept = true
        continue
      }
      if subscriber.once { subscribers[number].active = false }
      log.append(
        delivery(
          number, publication.payload, on: topicNames[publication.topic],
          from: publication.sender.map { "s\($0)" }, to: subscriber.owner.map { "o\($0)" }))
      guard let reaction = subscriber.reaction else { continue }
      subscribers[number].reaction = nil
      if case .publish = reaction, depth > 1 { continue }
      perform(reaction)
    }
  }
}
