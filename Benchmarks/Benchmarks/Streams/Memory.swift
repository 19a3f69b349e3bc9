import Benchmark
import Foundation
import IndefiniteObservable

#if Peers
  import OpenCombine
#endif

/// Scenario 6: what an idle subscription to a two-operator chain costs in memory. Each
/// operation makes one subscription and keeps it; the measurement counts the allocations and
/// the bytes requested. Storage for keeping the subscriptions, and the source's own callback
/// array, are reserved before the measurement starts.
func memoryBenchmarks() {
  let scenario = "idle subscription"
  let configuration = Benchmark.Configuration(
    metrics: [.mallocCountTotal, .mallocBytesCount],
    scalingFactor: .kilo,
    maxDuration: .seconds(1),
    maxIterations: checkingAllocations ? allocationCheckSamples : 200,
    thresholds: exactAllocations([.mallocCountTotal, .mallocBytesCount])
  )
  let count = configuration.scalingFactor.rawValue

  Benchmark(name(scenario, "IndefiniteObservable"), configuration: configuration) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: count)
    let chain = source.stream.map { transform($0) }.filter { isIncluded($0) }
    var subscriptions: [StreamSubscription] = []
    subscriptions.reserveCapacity(count)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      subscriptions.append(chain.subscribe { receiver.receive($0) })
    }
    benchmark.stopMeasurement()
    for subscription in subscriptions.reversed() { subscription.unsubscribe() }
  }

  Benchmark(name(scenario, "hand-written closures (floor)"), configuration: configuration) {
    benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: count)
    var ids: [Int] = []
    ids.reserveCapacity(count)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      ids.append(
        source.add { value in
          let transformed = transform(value)
          if isIncluded(transformed) { receiver.receive(transformed) }
        })
    }
    benchmark.stopMeasurement()
    for id in ids.reversed() { source.remove(id) }
  }

  Benchmark(name(scenario, apiWithoutOperators), configuration: configuration) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>(capacity: count)
    let stream = source.stream
    var subscriptions: [StreamSubscription] = []
    subscriptions.reserveCapacity(count)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      subscriptions.append(
        stream.subscribe(
          observer: ValueObserver { value in
            let transformed = transform(value)
            if isIncluded(transformed) { receiver.receive(transformed) }
          }))
    }
    benchmark.stopMeasurement()
    for subscription in subscriptions.reversed() { subscription.unsubscribe() }
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject"), configuration: configuration) {
      benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let publisher = subject.map { transform($0) }.filter { isIncluded($0) }
      var cancellables: [AnyCancellable] = []
      cancellables.reserveCapacity(count)
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        cancellables.append(publisher.sink { receiver.receive($0) })
      }
      benchmark.stopMeasurement()
      for cancellable in cancellables { cancellable.cancel() }
    }
  #endif

  Benchmark(name(scenario, "NotificationCenter"), configuration: configuration) { benchmark in
    let receiver = Receiver()
    let center = NotificationCenter()
    var tokens: [any NSObjectProtocol] = []
    tokens.reserveCapacity(count)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      tokens.append(
        center.addObserver(forName: valueNotification, object: nil, queue: nil) {
          let transformed = transform($0.userInfo?[valueKey] as? Int ?? 0)
          if isIncluded(transformed) { receiver.receive(transformed) }
        })
    }
    benchmark.stopMeasurement()
    for token in tokens { center.removeObserver(token) }
  }
}
