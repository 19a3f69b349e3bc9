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
/// - **5,000 in a row** and **100,000 in a row**: that many subscribes to a new emitter, sweeps
///   and the array's growth included; one sample is the whole run (compare the two rows'
///   unscaled times: linear growth would make the second 20 times the first).
func ownerBoundSubscribeBenchmarks() {
  subscribeAndUnsubscribe(after: 0, scenario: "owner-bound subscribe, the 1st")
  subscribeAndUnsubscribe(after: 99_999, scenario: "owner-bound subscribe, the 100,000th")
  subscribeInARow(5_000, scenario: "owner-bound subscribes, 5,000 in a row")
  subscribeInARow(100_000, scenario: "owner-bound subscribes, 100,000 in a row")
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

/// `count` owner-bound subscribes to a new emitter; one sample is the whole run.
private func subscribeInARow(_ count: Int, scenario: String) {
  var configuration = Benchmark.defaultConfiguration
  configuration.maxIterations = min(configuration.maxIterations, 20)
  Benchmark(name(scenario, "IndefiniteObservable"), configuration: configuration) { benchmark in
    let owner = Owner()
    let emitter = Emitter<Int>()
    emitter.maxSubscribers = Int.max
    var subscriptions: [Subscription] = []
    subscriptions.reserveCapacity(count)
    benchmark.startMeasurement()
    for _ in 0..<count {
      subscriptions.append(emitter.subscribe(owner) { owner, value in owner.received += value })
    }
    benchmark.stopMeasurement()
    for subscription in subscriptions { subscription.unsubscribe() }
  }
}
