import Benchmark
import Multicast

/// A class with a `@Streamed` property, as a view model has.
final class StreamedModel {
  @Streamed var count = 0
}

/// `CurrentValue` and `@Streamed`, ours only: a write to one subscriber, a read, and making a
/// holder. Nothing observes them through Observation (`withObservationTracking`), so what the rows
/// show is what taking part in it costs those who do not use it.
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

  Benchmark(name("current value read", "IndefiniteObservable")) { benchmark in
    let current = CurrentValue(0)
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
