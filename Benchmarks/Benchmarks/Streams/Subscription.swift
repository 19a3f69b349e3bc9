import Benchmark
import Foundation
import IndefiniteObservable

#if Peers
  import OpenCombine
#endif

/// Scenario 2: subscribing to a two-operator chain and unsubscribing again. The chain (or
/// publisher) is built once; each operation subscribes to it and ends the subscription. The
/// callback-list source has room for its one callback before the measurement starts (each sample
/// makes a new one), so that its arrays' first allocations are not counted.
func subscriptionBenchmarks() {
  let scenario = "subscribe+unsubscribe"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: 1)
    let chain = source.stream.map { transform($0) }.filter { isIncluded($0) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      chain.subscribe { receiver.receive($0) }.unsubscribe()
    }
    benchmark.stopMeasurement()
  }

  Benchmark(name(scenario, "hand-written closures (floor)")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: 1)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let id = source.add { value in
        let transformed = transform(value)
        if isIncluded(transformed) { receiver.receive(transformed) }
      }
      source.remove(id)
    }
    benchmark.stopMeasurement()
  }

  // 4.0's own API with no operator: the chain's work written by hand into the observer that
  // `subscribe(observer:)` hands to the same source. What our operators add shows as the
  // difference between this row and ours; what 4.0's shape (an observer for the source's connect
  // closure, which returns a disconnect closure) adds to the floor, as this row's difference
  // from the floor.
  Benchmark(name(scenario, apiWithoutOperators)) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: 1)
    let stream = source.stream
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      stream.subscribe(
        observer: ValueObserver { value in
          let transformed = transform(value)
          if isIncluded(transformed) { receiver.receive(transformed) }
        }
      ).unsubscribe()
    }
    benchmark.stopMeasurement()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let publisher = subject.map { transform($0) }.filter { isIncluded($0) }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        publisher.sink { receiver.receive($0) }.cancel()
      }
      benchmark.stopMeasurement()
    }
  #endif

  Benchmark(name(scenario, "NotificationCenter")) { benchmark in
    let receiver = Receiver()
    let center = NotificationCenter()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let token = center.addObserver(forName: valueNotification, object: nil, queue: nil) {
        let transformed = transform($0.userInfo?[valueKey] as? Int ?? 0)
        if isIncluded(transformed) { receiver.receive(transformed) }
      }
      center.removeObserver(token)
    }
    benchmark.stopMeasurement()
  }
}

/// The implementation name of 4.0's `subscribe(observer:)` with no operator, the chain's work
/// written into the observer by hand.
let apiWithoutOperators = "4.0 subscribe(observer:), no operator"
