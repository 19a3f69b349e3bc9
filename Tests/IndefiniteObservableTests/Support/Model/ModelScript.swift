import TestSupport
import Testing

/// Which multicast source a script drives, in the model-based tests.
enum ModelSource: CaseIterable, Sendable, CustomTestStringConvertible {
  /// An `Emitter`, subscribed directly and through `SubscriptionBag`s.
  case emitter
  /// A `CurrentValue` that delivers every write.
  case currentValue
  /// A `CurrentValue` made with `skipsEqualWrites: true`.
  case currentValueSkippingEqualWrites

  var testDescription: String {
    switch self {
    case .emitter: "Emitter and SubscriptionBag"
    case .currentValue: "CurrentValue"
    case .currentValueSkippingEqualWrites: "CurrentValue skipping equal writes"
    }
  }

  var isEmitter: Bool { self == .emitter }
}

/// How a subscription is made. Owners and bags are picked by number when the subscription is
/// made: a number past the end of the list, or one whose owner (or bag) is gone, makes a new one.
struct SubscriberSpec: CustomStringConvertible {
  /// Where the subscription goes.
  enum Route {
    /// Subscribed to the source.
    case direct
    /// Subscribed to the source, then stored in a bag with `store(in:)`.
    case storedIn(bag: Int, queue: Bool)
    /// Made by a bag's `subscribe(to:)`, to the emitter or to `emitter.map { $0 }`.
    case through(bag: Int, queue: Bool, mapped: Bool)
  }

  var route = Route.direct
  var replayingLast = false
  var limit: Int?
  var owner: Int?
  var onQueue = false
  /// What the subscriber does from its callback, if anything.
  var reaction: Reaction?

  var description: String {
    var parts: [String] = []
    switch route {
    case .direct: break
    case .storedIn(let bag, let queue): parts.append("stored in bag \(bag)\(queue ? "(q)" : "")")
    case .through(let bag, let queue, let mapped):
      parts.append("through bag \(bag)\(queue ? "(q)" : "") to \(mapped ? "map" : "emitter")")
    }
    if replayingLast { parts.append("replaying") }
    if let limit { parts.append("limit \(limit)") }
    if let owner { parts.append("owner \(owner)") }
    if onQueue { parts.append("on queue") }
    if let reaction { parts.append("every \(reaction.every): \(reaction.action)") }
    return parts.isEmpty ? "plain" : parts.joined(separator: ", ")
  }
}

/// Something a subscriber does from its callback, on every `every`th value it receives.
struct Reaction {
  var every: Int
  var action: ModelAction
}

/// One step of a script, or what a subscriber does from its callback. Subscriptions, owners
/// and bags are picked by number, modulo how many have been made so far.
indirect enum ModelAction: CustomStringConvertible {
  case subscribe(SubscriberSpec)
  case send(Int)
  /// `CurrentValue.update { $0 += delta }`.
  case update(Int)
  case unsubscribe(Int)
  /// The reacting subscriber unsubscribes its own subscription.
  case unsubscribeSelf
  /// The test lets go of an owner; subscriptions bound to it end when it is deallocated.
  case dropOwner(Int)
  /// `Emitter.unsubscribe(owner)`.
  case unsubscribeOwner(Int)
  case unsubscribeAll
  case bagUnsubscribeAll(Int)
  case bagUnsubscribeFrom(Int, mapped: Bool)
  /// The test lets go of a bag, which ends its subscriptions.
  case dropBag(Int)
  /// Lets the delivery queue run what waits on it.
  case drain

  var description: String {
    switch self {
    case .subscribe(let spec): "subscribe(\(spec))"
    case .send(let value): "send(\(value))"
    case .update(let delta): "update(+\(delta))"
    case .unsubscribe(let pick): "unsubscribe(#\(pick))"
    case .unsubscribeSelf: "unsubscribe(self)"
    case .dropOwner(let pick): "drop owner #\(pick)"
    case .unsubscribeOwner(let pick): "unsubscribe(owner #\(pick))"
    case .unsubscribeAll: "unsubscribeAll()"
    case .bagUnsubscribeAll(let pick): "bag #\(pick).unsubscribeAll()"
    case .bagUnsubscribeFrom(let pick, let mapped):
      "bag #\(pick).unsubscribe(from: \(mapped ? "map" : "emitter"))"
    case .dropBag(let pick): "drop bag #\(pick)"
    case .drain: "drain the queue"
    }
  }
}

extension ModelAction {
  /// A random script of `length` steps for `source`.
  static func script(
    for source: ModelSource, length: Int, using generator: inout SeededGenerator
  ) -> [ModelAction] {
    (0..<length).map { _ in step(for: source, using: &generator) }
  }

  /// A random step: mostly subscribing, sending and unsubscribing.
  static func step(for source: ModelSource, using g: inout SeededGenerator) -> ModelAction {
    switch g.below(100) {
    case 0..<30: .subscribe(.random(for: source, reacting: true, using: &g))
    case 30..<60: value(for: source, using: &g)
    case 60..<75: .unsubscribe(g.below(64))
    case 75..<80: .dropOwner(g.below(64))
    case 80..<88: .drain
    default:
      source.isEmitter
        ? g.pick([
          .unsubscribeOwner(g.below(64)), .unsubscribeAll, .bagUnsubscribeAll(g.below(64)),
          .bagUnsubscribeFrom(g.below(64), mapped: g.oneIn(2)), .dropBag(g.below(64)),
        ])
        : value(for: source, using: &g)
    }
  }

  /// A random action for a subscriber's callback.
  static func reaction(for source: ModelSource, using g: inout SeededGenerator) -> ModelAction {
    switch g.below(10) {
    case 0..<3: value(for: source, using: &g)
    case 3: .subscribe(.random(for: source, reacting: false, using: &g))
    case 4: .unsubscribe(g.below(64))
    case 5, 6: .unsubscribeSelf
    case 7: .dropOwner(g.below(64))
    default:
      source.isEmitter
        ? g.pick([
          .unsubscribeOwner(g.below(64)), .unsubscribeAll, .bagUnsubscribeAll(g.below(64)),
          .dropBag(g.below(64)),
        ])
        : .unsubscribe(g.below(64))
    }
  }

  /// A send or write. Values come from a small range, so that a holder skipping equal writes
  /// meets equal ones.
  private static func value(for source: ModelSource, using g: inout SeededGenerator)
    -> ModelAction
  {
    !source.isEmitter && g.oneIn(3) ? .update(g.below(3)) : .send(g.below(5))
  }
}

extension SubscriberSpec {
  /// A random subscription for `source`; with `reacting`, it may act from its callback.
  static func random(
    for source: ModelSource, reacting: Bool, using g: inout SeededGenerator
  ) -> SubscriberSpec {
    var spec = SubscriberSpec()
    if source.isEmitter {
      switch g.below(10) {
      case 0: spec.route = .storedIn(bag: g.below(8), queue: false)  // bags have no queue
      case 1, 2: spec.route = .through(bag: g.below(8), queue: false, mapped: g.oneIn(2))
      default: break
      }
      spec.replayingLast = g.oneIn(3)
      if g.oneIn(4) { spec.limit = g.below(4) }
    }
    if g.oneIn(3) { spec.owner = g.below(8) }
    spec.onQueue = g.oneIn(5)
    let synchronous: Bool =
      switch spec.route {
      case .direct, .storedIn: !spec.onQueue
      case .through(_, let queue, _): !queue
      }
    if reacting && synchronous && g.oneIn(2) {
      spec.reaction = Reaction(every: 1 + g.below(3), action: .reaction(for: source, using: &g))
    }
    return spec
  }
}
