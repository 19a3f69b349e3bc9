/// The reference model of a multicast source: the documented behaviour of ``Emitter``,
/// ``CurrentValue`` and ``SubscriptionBag`` on one thread, written as plainly as possible, with
/// no locks, no atomics and no fast paths.
///
/// The rules it follows, from the types' documentation:
/// - A send stores the value (the last value), counts it, and goes through the subscribers that
///   were subscribed when it began, in subscription order; one that ended meanwhile is skipped.
///   A value sent from a callback is delivered at once, before the outer send goes on.
/// - A replayed value is delivered before `subscribe` returns; a value sent meanwhile (from the
///   replay's own callback) waits and arrives right after it. A queue subscriber's replay is
///   enqueued before any later value.
/// - A limited subscription ends after that many values delivered (for a queue subscriber,
///   counted on the queue, as they run); a limit of zero or less delivers nothing.
/// - An owner-bound subscription ends when its owner is deallocated: never called after that.
///   The owner lives while one of its subscribers' callbacks runs, and while the `subscribe`
///   that it was passed to runs (its caller holds it).
/// - Values wait on the queue until it runs; those of a subscription that has ended are
///   dropped.
/// - A bag ends its subscriptions on `unsubscribeAll()`, on `unsubscribe(from:)` (those made by
///   its `subscribe(to:)` with that source), and when it is let go of. A bag with a queue
///   subscribes to the source a subscriber that enqueues each value behind a gate, which only
///   the bag's subscription closes: ending the source's subscriber (`unsubscribeAll()` of the
///   emitter) stops enqueuing, but lets through what was already enqueued.
/// - A bag counts the subscriptions it holds whose `unsubscribe()` has not been called.
final class MulticastModel: ModelWorld {
  private final class Subscriber {
    enum State { case replaying, active, ended }

    let handle: Int
    let owner: Int?
    let onQueue: Bool
    /// Whether it is a bag's queue subscription, whose queued values pass while `isGateOpen`.
    let isGated: Bool
    var isGateOpen = true
    var remaining: Int?
    var state = State.active
    var isListed = true
    var parked: [Int] = []
    /// Whether `subscribe` has returned, so that the test holds its subscription.
    var isReturned = false

    init(handle: Int, owner: Int?, onQueue: Bool, limit: Int?, isGated: Bool = false) {
      self.handle = handle
      self.owner = owner
      self.onQueue = onQueue
      self.remaining = limit
      self.isGated = isGated
    }
  }

  private final class Bag {
    let hasQueue: Bool
    /// Each subscription the bag holds, with the source `subscribe(to:)` made it for.
    var members: [(handle: Int, mapped: Bool?)] = []
    init(hasQueue: Bool) { self.hasQueue = hasQueue }
  }

  private weak var run: ModelRun?
  private let alwaysReplays: Bool
  private let skipsEqualWrites: Bool
  private var last: Int?
  private var sendCount = 0
  private var list: [Subscriber] = []
  private var subscribers: [Int: Subscriber] = [:]
  /// Whether the test let go of each owner, and how many callbacks and calls hold it now.
  private var owners: [(dropped: Bool, holds: Int)] = []
  private var bags: [Bag?] = []
  /// The subscriptions whose `unsubscribe()` the test called: a bag no longer counts them.
  private var unsubscribedHandles: Set<Int> = []
  private var queue: [(Subscriber, Int)] = []

  /// A model of an ``Emitter``.
  init(emitterFor run: ModelRun) {
    self.run = run
    alwaysReplays = false
    skipsEqualWrites = false
  }

  /// A model of a ``CurrentValue`` that starts at 0.
  init(currentValueFor run: ModelRun, skipsEqualWrites: Bool) {
    self.run = run
    alwaysReplays = true
    self.skipsEqualWrites = skipsEqualWrites
    last = 0
  }

  // MARK: Subscribing

  func subscribe(_ handle: Int, _ spec: ResolvedSpec) {
    if case .through(let bagIndex, let mapped) = spec.route {
      let bag = bags[bagIndex]!
      // A bag with a queue subscribes a plain subscriber that enqueues; without, a plain one.
      let subscriber = Subscriber(
        handle: handle, owner: nil, onQueue: bag.hasQueue, limit: nil, isGated: bag.hasQueue)
      add(subscriber)
      subscriber.isReturned = true
      bag.members.append((handle, mapped))
      return
    }
    // `store(in:)` runs once `subscribe` has returned, after the replay (which may have let go
    // of the bag).
    defer {
      if case .storedIn(let bag) = spec.route { bags[bag]?.members.append((handle, nil)) }
    }
    let subscriber = Subscriber(
      handle: handle, owner: spec.owner, onQueue: spec.onQueue, limit: spec.limit)
    if let owner = spec.owner { hold(owner) }
    defer { if let owner = spec.owner { release(owner) } }
    if let limit = spec.limit, limit <= 0 {
      subscriber.state = .ended
      subscriber.isListed = false
      subscriber.isReturned = true
      subscribers[handle] = subscriber
      return
    }
    sweepLostOwners()
    let replay = (alwaysReplays || spec.replayingLast) ? last : nil
    if let replay, spec.onQueue {
      add(subscriber)
      queue.append((subscriber, replay))
    } else if let replay {
      subscriber.state = .replaying
      add(subscriber)
      deliverReplay(replay, to: subscriber)
    } else {
      add(subscriber)
    }
    subscriber.isReturned = true
  }

  private func add(_ subscriber: Subscriber) {
    list.append(subscriber)
    subscribers[subscriber.handle] = subscriber
  }

  /// The replay, then the values sent while it ran, until none are left.
  private func deliverReplay(_ replay: Int, to subscriber: Subscriber) {
    var batch = [replay]
    while true {
      for value in batch {
        guard subscriber.state == .replaying else { return }
        deliverNow(value, to: subscriber)
      }
      batch = subscriber.parked
      subscriber.parked = []
      if batch.isEmpty {
        if subscriber.state == .replaying { subscriber.state = .active }
        return
      }
    }
  }

  // MARK: Sending

  func send(_ value: Int) {
    if skipsEqualWrites && last == value { return }
    last = value
    sendCount += 1
    for subscriber in list { deliver(value, to: subscriber) }
  }

  func update(_ delta: Int) { send(last! + delta) }

  private func deliver(_ value: Int, to subscriber: Subscriber) {
    switch subscriber.state {
    case .ended: return
    case .replaying: subscriber.parked.append(value)
    case .active:
      if subscriber.onQueue {
        queue.append((subscriber, value))
      } else {
        deliverNow(value, to: subscriber)
      }
    }
  }

  /// Calls a subscriber (on the sending thread, or on its queue), if its limit and owner allow.
  private func deliverNow(_ value: Int, to subscriber: Subscriber) {
    if subscriber.remaining != nil && take(subscriber) <= 0 { return }
    call(subscriber, value)
  }

  /// Takes one of a limited subscription's deliveries; returns how many it had. The last
  /// one takes it off the list.
  private func take(_ subscriber: Subscriber) -> Int {
    let before = subscriber.remaining!
    subscriber.remaining = before - 1
    if before == 1 { unlist(subscriber) }
    return before
  }

  /// Calls the subscriber, keeping its owner alive meanwhile, unless the owner is gone.
  private func call(_ subscriber: Subscriber, _ value: Int) {
    guard let owner = subscriber.owner else {
      run?.delivered(to: subscriber.handle, value)
      return
    }
    guard isAlive(owner) else { return end(subscriber) }
    hold(owner)
    run?.delivered(to: subscriber.handle, value)
    release(owner)
  }

  func drain() {
    let waiting = queue
    queue = []
    for (subscriber, value) in waiting {
      if subscriber.isGated {
        if subscriber.isGateOpen { call(subscriber, value) }
      } else if subscriber.state != .ended {
        deliverNow(value, to: subscriber)
      }
    }
  }

  // MARK: Ending

  func unsubscribe(_ handle: Int) {
    guard let subscriber = subscribers[handle], subscriber.isReturned else { return }
    unsubscribedHandles.insert(handle)
    unsubscribe(subscriber)
  }

  /// What the test's `Subscription` does: ends the subscriber and closes its gate, if any.
  private func unsubscribe(_ subscriber: Subscriber) {
    subscriber.isGateOpen = false
    end(subscriber)
  }

  private func end(_ subscriber: Subscriber) {
    subscriber.state = .ended
    unlist(subscriber)
  }

  private func unlist(_ subscriber: Subscriber) {
    subscriber.isListed = false
    list.removeAll { $0 === subscriber }
  }

  func makeOwner() { owners.append((false, 0)) }
  func dropOwner(_ owner: Int) { owners[owner].dropped = true }

  private func isAlive(_ owner: Int) -> Bool {
    !owners[owner].dropped || owners[owner].holds > 0
  }

  private func hold(_ owner: Int) { owners[owner].holds += 1 }
  private func release(_ owner: Int) { owners[owner].holds -= 1 }

  private func sweepLostOwners() {
    for subscriber in list {
      if let owner = subscriber.owner, !isAlive(owner) { end(subscriber) }
    }
  }

  func unsubscribe(owner: Int) {
    for subscriber in list where subscriber.owner == owner { end(subscriber) }
  }

  func unsubscribeAll() {
    for subscriber in list { end(subscriber) }
  }

  // MARK: Bags

  func makeBag(queue: Bool) { bags.append(Bag(hasQueue: queue)) }

  func bagUnsubscribeAll(_ bag: Int) {
    let members = bags[bag]!.members
    bags[bag]!.members = []
    for member in members { subscribers[member.handle].map(unsubscribe) }
  }

  func bagUnsubscribe(_ bag: Int, fromMapped mapped: Bool) {
    let members = bags[bag]!.members
    bags[bag]!.members = members.filter { $0.mapped != mapped }
    for member in members where member.mapped == mapped {
      subscribers[member.handle].map(unsubscribe)
    }
  }

  func dropBag(_ bag: Int) {
    bagUnsubscribeAll(bag)
    bags[bag] = nil
  }

  var observation: ModelObservation {
    sweepLostOwners()
    return ModelObservation(
      subscriberCount: list.count, lastValue: last, sendCount: sendCount,
      bagCounts: bags.compactMap { bag in
        bag?.members.count { !unsubscribedHandles.contains($0.handle) }
      })
  }
}
