import Benchmark
import Foundation
import IndefiniteObservable
import Multicast

/// An object that owner-bound subscribers are bound to.
final class Owner {
  var received = 0
}

/// Scenario: owner-bound subscribes (`emitter.subscribe(owner) { owner, value in ... }`) to one
/// `Emitter` that already has many, against one that has none. Each subscribe once read every
/// earlier subscriber's owner, looking for lost ones; now a subscribe does so only when the
/// count has doubled since the last sweep, so its cost does not grow with the count.
///
/// - **the 1st** and **the 100,000th**: a subscribe and its unsubscribe, 1,000 per sample, to an
///   emitter with none and with 99,999 other owner-bound subscribers.
/// - **100,000 to one emitter** and **100,000 to 20 emitters of 5,000**: 100,000 subscribes in
///   a row, sweeps and the lists' growth included; one sample is the whole run. Both make the
///   same objects, so the heap and the caches cost both the same: the second row is 20 times
///   5,000 subscribes to one emitter, and linear growth makes the two rows equal. (Measured
///   alone, 5,000 subscribes reuse memory that 100,000 must first fault in, and the ratio of the
///   two says more about the heap than about the list.)
/// - The same two rows with plain subscribes, which read no owner.
func ownerBoundSubscribeBenchmarks() {
  subscribeAndUnsubscribe(after: 0, scenario: "owner-bound subscribe, the 1st")
  subscribeAndUnsubscribe(after: 99_999, scenario: "owner-bound subscribe, the 100,000th")
  subscribeInARow(emitters: 1, scenario: "owner-bound subscribes, 100,000 to one emitter")
  subscribeInARow(emitters: 20, scenario: "owner-bound subscribes, 100,000 to 20 emitters")
  subscribeInARow(
    emitters: 1, ownerBound: false, scenario: "plain subscribes, 100,000 to one emitter")
  subscribeInARow(
    emitters: 20, ownerBound: false, scenario: "plain subscribes, 100,000 to 20 emitters")
}

/// One owner-bound subscribe and unsubscribe, 1,000 per sample, to an emitter that already has
/// `earlier` owner-bound subscribers.
private func subscribeAndUnsubscribe(after earlier: Int, scenario: String) {
  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let owner = Owner()
    let emitter = Emitter<Int>()
    emitter.maxSubscribers = Int.max
    let existing = (0..<earlier).map { _ in
      emitter.subscribe(owner) { owner, _ in owner.received += 1 }
    }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      emitter.subscribe(owner) { owner, value in owner.received += value }.unsubscribe()
    }
    benchmark.stopMeasurement()
    for subscription in existing { subscription.unsubscribe() }
  }
}

/// 100,000 subscribes, owner-bound or plain, shared out in turn among `emitters` new emitters
/// (one after the other); one sample is the whole run (the tables divide it by 1,000, as every
/// sample here).
private func subscribeInARow(emitters: Int, ownerBound: Bool = true, scenario: String) {
  let total = 100_000
  var configuration = Benchmark.defaultConfiguration
  configuration.maxIterations = min(configuration.maxIterations, 20)
  Benchmark(name(scenario, "IndefiniteObservable"), configuration: configuration) { benchmark in
    let owner = Owner()
    let sources = (0..<emitters).map { _ in Emitter<Int>() }
    for source in sources { source.maxSubscribers = Int.max }
    var subscriptions: [Subscription] = []
    subscriptions.reserveCapacity(total)
    benchmark.startMeasurement()
    for emitter in sources {
      if ownerBound {
        for _ in 0..<(total / emitters) {
          subscriptions.append(emitter.subscribe(owner) { owner, value in owner.received += value })
        }
      } else {
        for _ in 0..<(total / emitters) {
          subscriptions.append(emitter.subscribe { value in owner.received += value })
        }
      }
    }
    benchmark.stopMeasurement()
    for subscription in subscriptions { subscription.unsubscribe() }
  }
}
