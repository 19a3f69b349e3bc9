import Benchmark
import Foundation
import IndefiniteObservable
import Multicast

#if Peers
  import OpenCombine
#endif

/// How many subscribers a fan-out send reaches.
let fanOutSubscribers = 100

/// Scenario 3: one send to 100 subscribers of a multicast source (ours: an `Emitter`), measured
/// per delivery. One sample is 1,000
/// deliveries: 10 sends to 100 subscribers, each of which hands the value on.
func fanOutBenchmarks() {
  let scenario = "fan-out"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let emitter = Emitter<Int>()
    let subscriptions = (0..<fanOutSubscribers).map { _ in
      emitter.subscribe { receiver.receive($0) }
    }
    benchmark.startMeasurement()
    for value in 0..<benchmark.scaledIterations.count / fanOutSubscribers { emitter.send(value) }
    benchmark.stopMeasurement()
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  Benchmark(name(scenario, "hand-written closures (floor)")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: fanOutSubscribers)
    let ids = (0..<fanOutSubscribers).map { _ in source.add { receiver.receive($0) } }
    benchmark.startMeasurement()
    for value in 0..<benchmark.scaledIterations.count / fanOutSubscribers { source.send(value) }
    benchmark.stopMeasurement()
    for id in ids.reversed() { source.remove(id) }
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let cancellables = (0..<fanOutSubscribers).map { _ in subject.sink { receiver.receive($0) } }
      benchmark.startMeasurement()
      for value in 0..<benchmark.scaledIterations.count / fanOutSubscribers { subject.send(value) }
      benchmark.stopMeasurement()
      for cancellable in cancellables { cancellable.cancel() }
    }
  #endif

  Benchmark(name(scenario, "NotificationCenter")) { benchmark in
    let receiver = Receiver()
    let center = NotificationCenter()
    let tokens = (0..<fanOutSubscribers).map { _ in
      center.addObserver(forName: valueNotification, object: nil, queue: nil) {
        receiver.receive($0.userInfo?[valueKey] as? Int ?? 0)
      }
    }
    benchmark.startMeasurement()
    for value in 0..<benchmark.scaledIterations.count / fanOutSubscribers {
      center.post(name: valueNotification, object: nil, userInfo: [valueKey: value])
    }
    benchmark.stopMeasurement()
    for token in tokens { center.removeObserver(token) }
  }
}
