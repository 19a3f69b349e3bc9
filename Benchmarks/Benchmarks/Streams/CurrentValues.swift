import Benchmark
import Multicast

/// A class with a `@Streamed` property, as a view model has.
final class StreamedModel {
  @Streamed var count = 0
}

/// `CurrentValue` and `@Streamed`, ours only: a write to one subscriber, a read, and making a
/// holder. Nothing observes them through Observation (`withObservationTracking`), so what the rows
/// show is what taking part in it costs those who do not use it. A holder gets its Observation
/// registrar at the first read of its value: the rows "after a read" and "made, read and
/// released" show that case, which is a SwiftUI model's.
func currentValueBenchmarks() {
  Benchmark(name("current value write", "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let current = CurrentValue(0)
    let subscription = current.subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { current.value = value }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  // Every write differs from the value before it: each is compared, then stored and delivered.
  Benchmark(name("current value write, skipping equal writes", "IndefiniteObservable")) {
    benchmark in
    let receiver = Receiver()
    let current = CurrentValue(-1, skipsEqualWrites: true)
    let subscription = current.subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { current.value = value }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  Benchmark(name("current value write, after a read", "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let current = CurrentValue(0)
    let subscription = current.subscribe { receiver.receive($0) }
    blackHole(current.value)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { current.value = value }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  // The first read is made before the measurement: the rows measure reads that follow it.
  Benchmark(name("current value read", "IndefiniteObservable")) { benchmark in
    let current = CurrentValue(0)
    blackHole(current.value)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { blackHole(current.value) }
    benchmark.stopMeasurement()
  }

  // A holder made, then released: what a `@Streamed` property costs its object.
  Benchmark(name("current value, made and released", "IndefiniteObservable")) { benchmark in
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { blackHole(CurrentValue(value)) }
    benchmark.stopMeasurement()
  }

  // The same, with a read of its value: what a holder that a view reads costs.
  Benchmark(name("current value, made, read and released", "IndefiniteObservable")) {
    benchmark in
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { blackHole(CurrentValue(value).value) }
    benchmark.stopMeasurement()
  }

  // Through the property wrapper, whose code runs unspecialized (another module's generic).
  Benchmark(name("@Streamed write", "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let model = StreamedModel()
    let subscription = model.$count.subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { model.count = value }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }
}
