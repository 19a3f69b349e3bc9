/// A multicast source and what surrounds it (owners, bags, a delivery queue), real or
/// modelled, driven by a ``ModelRun``. Both kinds report every delivery to the run with
/// ``ModelRun/delivered(to:_:)``, as it happens.
protocol ModelWorld: AnyObject {
  func subscribe(_ handle: Int, _ spec: ResolvedSpec)
  func unsubscribe(_ handle: Int)
  func send(_ value: Int)
  func update(_ delta: Int)
  func makeOwner()
  func dropOwner(_ owner: Int)
  func unsubscribe(owner: Int)
  func unsubscribeAll()
  func makeBag(queue: Bool)
  func bagUnsubscribeAll(_ bag: Int)
  func bagUnsubscribe(_ bag: Int, fromMapped: Bool)
  func dropBag(_ bag: Int)
  func drain()
  /// What the source and the bags say about themselves.
  var observation: ModelObservation { get }
}

/// A subscription as a world makes it: owners and bags resolved to existing ones.
struct ResolvedSpec {
  enum Route {
    case direct
    case storedIn(bag: Int)
    case through(bag: Int, mapped: Bool)
  }

  var route: Route
  var replayingLast: Bool
  var limit: Int?
  var owner: Int?
  var onQueue: Bool
}

/// What the source and the bags say about themselves, compared after every step.
struct ModelObservation: Equatable, CustomStringConvertible {
  var subscriberCount: Int
  var lastValue: Int?
  var sendCount: Int
  /// The `count` of each bag not let go of, in the order they were made.
  var bagCounts: [Int]

  var description: String {
    "subscriberCount \(subscriberCount), last \(lastValue.map(String.init) ?? "nil"), "
      + "sendCount \(sendCount), bag counts \(bagCounts)"
  }
}

/// Runs a script against one world: resolves what the steps pick, keeps the trace of
/// deliveries, and performs subscribers' reactions from their callbacks.
///
/// It is used from one thread at a time: the test's, and the delivery queue's while the test
/// waits for it in `drain`.
// `@unchecked Sendable`: a run is driven from one thread; queue subscribers' deliveries reach it
// on the world's serial queue, which the run drains with `sync` before it reads what they did.
final class ModelRun: @unchecked Sendable {
  /// How deep reactions may nest: a reaction's send can make another subscriber react, up to
  /// this many operations deep.
  static let maximumDepth = 3
  /// How many reactions one step may cause. Without a bound, a subscriber that sends from each
  /// replayed value would run forever: each value it sends waits for its replay to finish,
  /// then is delivered to it at the same depth.
  static let maximumReactionsPerStep = 16

  private(set) var trace: [String] = []
  private var world: (any ModelWorld)!
  private var depth = 0
  private var reactions = 0
  private var specs: [SubscriberSpec] = []
  /// Whether each subscription is delivered on the test's thread, and may react. One delivered
  /// on the queue must not: what it would send or subscribe could run before or after the
  /// queue is held again.
  private var isSynchronous: [Bool] = []
  private var deliveries: [Int] = []
  private var ownerDropped: [Bool] = []
  private var bagDropped: [Bool] = []
  private var bagHasQueue: [Bool] = []

  init(_ makeWorld: (ModelRun) -> any ModelWorld) {
    world = makeWorld(self)
  }

  var observation: ModelObservation { world.observation }

  /// Runs one step, or a reaction of subscription `handle`.
  func perform(_ action: ModelAction, from handle: Int? = nil) {
    if depth == 0 { reactions = 0 }
    depth += 1
    defer { depth -= 1 }
    switch action {
    case .subscribe(let spec):
      let handle = specs.count
      specs.append(spec)
      deliveries.append(0)
      trace.append("subscribe #\(handle)")
      let resolved = resolve(spec)
      switch resolved.route {
      case .direct, .storedIn: isSynchronous.append(!resolved.onQueue)
      case .through(let bag, _): isSynchronous.append(!bagHasQueue[bag])
      }
      world.subscribe(handle, resolved)
    case .send(let value): world.send(value)
    case .update(let delta): world.update(delta)
    case .unsubscribe(let pick):
      if !specs.isEmpty { world.unsubscribe(pick % specs.count) }
    case .unsubscribeSelf:
      if let handle { world.unsubscribe(handle) }
    case .dropOwner(let pick):
      guard let owner = existing(pick, in: ownerDropped) else { return }
      ownerDropped[owner] = true
      world.dropOwner(owner)
    case .unsubscribeOwner(let pick):
      if let owner = existing(pick, in: ownerDropped) { world.unsubscribe(owner: owner) }
    case .unsubscribeAll: world.unsubscribeAll()
    case .bagUnsubscribeAll(let pick):
      if let bag = existing(pick, in: bagDropped) { world.bagUnsubscribeAll(bag) }
    case .bagUnsubscribeFrom(let pick, let mapped):
      if let bag = existing(pick, in: bagDropped) { world.bagUnsubscribe(bag, fromMapped: mapped) }
    case .dropBag(let pick):
      guard let bag = existing(pick, in: bagDropped) else { return }
      bagDropped[bag] = true
      world.dropBag(bag)
    case .drain: world.drain()
    }
  }

  /// Called by the world for each delivery: records it, and performs the subscriber's
  /// reaction when it is due.
  func delivered(to handle: Int, _ value: Int) {
    trace.append("#\(handle) <- \(value)")
    deliveries[handle] += 1
    if let reaction = specs[handle].reaction, isSynchronous[handle],
      deliveries[handle] % reaction.every == 0,
      depth < Self.maximumDepth, reactions < Self.maximumReactionsPerStep
    {
      reactions += 1
      perform(reaction.action, from: handle)
    }
  }

  /// Lets the queue run what waits on it, then lets go of the world.
  func finish() {
    world.drain()
    world = nil
  }

  /// The element `pick` designates among those made so far, unless it was let go of.
  private func existing(_ pick: Int, in dropped: [Bool]) -> Int? {
    guard !dropped.isEmpty, !dropped[pick % dropped.count] else { return nil }
    return pick % dropped.count
  }

  /// Resolves the owner and bag of `spec`, making new ones where it asks for them or where
  /// the ones it picks are gone.
  private func resolve(_ spec: SubscriberSpec) -> ResolvedSpec {
    let owner = spec.owner.map { pick in
      if pick < ownerDropped.count && !ownerDropped[pick] { return pick }
      ownerDropped.append(false)
      world.makeOwner()
      return ownerDropped.count - 1
    }
    func bag(_ pick: Int, queue: Bool) -> Int {
      if pick < bagDropped.count && !bagDropped[pick] { return pick }
      bagDropped.append(false)
      bagHasQueue.append(queue)
      world.makeBag(queue: queue)
      return bagDropped.count - 1
    }
    let route: ResolvedSpec.Route =
      switch spec.route {
      case .direct: .direct
      case .storedIn(let pick, let queue): .storedIn(bag: bag(pick, queue: queue))
      case .through(let pick, let queue, let mapped):
        .through(bag: bag(pick, queue: queue), mapped: mapped)
      }
    return ResolvedSpec(
      route: route, replayingLast: spec.replayingLast, limit: spec.limit, owner: owner,
      onQueue: spec.onQueue)
  }
}
