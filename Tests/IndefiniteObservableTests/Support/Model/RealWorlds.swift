import Dispatch
import IndefiniteObservable
import Multicast

/// A serial queue that runs only while a world drains it, so that what a script sees does not
/// depend on when another thread gets to run. Queue subscriptions and bags with a queue
/// deliver on it.
///
/// A suspended queue must not be released (Dispatch stops the process), so `deinit` resumes it.
private final class HeldQueue {
  let queue = DispatchQueue(label: "model")

  init() { queue.suspend() }

  /// Runs everything enqueued so far, then holds the queue again.
  func drain() {
    queue.resume()
    queue.sync {}
    queue.suspend()
  }

  deinit { queue.resume() }
}

/// An owner that subscriptions are bound to.
private final class ModelOwner: Sendable {}

/// A real ``Emitter``, with the owners and ``SubscriptionBag``s of a script.
final class EmitterWorld: ModelWorld {
  private weak var run: ModelRun?
  private let emitter = Emitter<Int>()
  private let mapped: ValueObservable<Int>
  private let held = HeldQueue()
  private var subscriptions: [Int: Subscription] = [:]
  private var owners: [ModelOwner?] = []
  private var bags: [SubscriptionBag?] = []

  init(_ run: ModelRun) {
    self.run = run
    emitter.maxSubscribers = .max
    mapped = emitter.map { $0 }
  }

  func subscribe(_ handle: Int, _ spec: ResolvedSpec) {
    let next: @Sendable (Int) -> Void = { [weak run] value in run?.delivered(to: handle, value) }
    let queue = held.queue
    let subscription: Subscription
    if case .through(let bag, let toMapped) = spec.route {
      subscription = bags[bag]!.subscribe(to: toMapped ? mapped : emitter, next)
    } else if let owner = spec.owner.map({ owners[$0]! }) {
      subscription =
        spec.onQueue
        ? Subscription(
          emitter.subscribe(
            owner, on: queue, replayingLast: spec.replayingLast, limit: spec.limit
          ) { _, value in next(value) })
        : emitter.subscribe(owner, replayingLast: spec.replayingLast, limit: spec.limit) {
          _, value in next(value)
        }
    } else {
      subscription =
        spec.onQueue
        ? Subscription(
          emitter.subscribe(on: queue, replayingLast: spec.replayingLast, limit: spec.limit, next))
        : emitter.subscribe(replayingLast: spec.replayingLast, limit: spec.limit, next)
    }
    // Unless the bag was let go of by a callback of the replay.
    if case .storedIn(let bag) = spec.route, let bag = bags[bag] { subscription.store(in: bag) }
    subscriptions[handle] = subscription
  }

  func unsubscribe(_ handle: Int) { subscriptions[handle]?.unsubscribe() }
  func send(_ value: Int) { emitter.send(value) }
  func update(_ delta: Int) {}  // An emitter's scripts have no update.
  func makeOwner() { owners.append(ModelOwner()) }
  func dropOwner(_ owner: Int) { owners[owner] = nil }
  func unsubscribe(owner: Int) { emitter.unsubscribe(owners[owner]!) }
  func unsubscribeAll() { emitter.unsubscribeAll() }
  func makeBag(queue: Bool) { bags.append(SubscriptionBag()) }
  func bagUnsubscribeAll(_ bag: Int) { bags[bag]!.unsubscribeAll() }

  func bagUnsubscribe(_ bag: Int, fromMapped: Bool) {
    if fromMapped {
      bags[bag]!.unsubscribe(from: mapped)
    } else {
      bags[bag]!.unsubscribe(from: emitter)
    }
  }

  func dropBag(_ bag: Int) { bags[bag] = nil }
  func drain() { held.drain() }

  var observation: ModelObservation {
    ModelObservation(
      subscriberCount: emitter.subscriberCount, lastValue: emitter.lastValue,
      sendCount: emitter.sendCount, bagCounts: bags.compactMap { $0?.count })
  }
}

/// A real ``CurrentValue`` that starts at 0, with the owners of a script.
final class CurrentValueWorld: ModelWorld {
  private weak var run: ModelRun?
  private let holder: CurrentValue<Int>
  private let held = HeldQueue()
  private var subscriptions: [Int: Subscription] = [:]
  private var owners: [ModelOwner?] = []

  init(_ run: ModelRun, skipsEqualWrites: Bool) {
    self.run = run
    holder = CurrentValue(0, skipsEqualWrites: skipsEqualWrites)
    holder.maxSubscribers = .max
  }

  func subscribe(_ handle: Int, _ spec: ResolvedSpec) {
    let next: @Sendable (Int) -> Void = { [weak run] value in run?.delivered(to: handle, value) }
    let queue = held.queue
    if let owner = spec.owner.map({ owners[$0]! }) {
      subscriptions[handle] =
        spec.onQueue
        ? Subscription(holder.subscribe(owner, on: queue) { _, value in next(value) })
        : holder.subscribe(owner) { _, value in next(value) }
    } else {
      subscriptions[handle] =
        spec.onQueue ? Subscription(holder.subscribe(on: queue, next)) : holder.subscribe(next)
    }
  }

  func unsubscribe(_ handle: Int) { subscriptions[handle]?.unsubscribe() }
  func send(_ value: Int) { holder.value = value }
  func update(_ delta: Int) { holder.update { $0 += delta } }
  func makeOwner() { owners.append(ModelOwner()) }
  func dropOwner(_ owner: Int) { owners[owner] = nil }
  // A current value's scripts neither end subscriptions by owner or all at once nor use bags.
  func unsubscribe(owner: Int) {}
  func unsubscribeAll() {}
  func makeBag(queue: Bool) {}
  func bagUnsubscribeAll(_ bag: Int) {}
  func bagUnsubscribe(_ bag: Int, fromMapped: Bool) {}
  func dropBag(_ bag: Int) {}
  func drain() { held.drain() }

  var observation: ModelObservation {
    ModelObservation(
      subscriberCount: holder.subscriberCount, lastValue: holder.value,
      sendCount: holder.sendCount, bagCounts: [])
  }
}
