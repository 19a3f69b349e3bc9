import Benchmark
import IndefiniteObservable
import Multicast

#if Peers
  import AsyncAlgorithms
#endif

/// Scenario 5: values reaching a task through an AsyncSequence. One sample is 1,000 values.
func asyncBridgeBenchmarks() {
  let scenario = "async bridge"

  // Our stream read as an AsyncSequence: the values are sent into an emitter, buffered by its
  // `values` sequence, then read by the same task. The AsyncStream below is read the same way.
  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let emitter = Emitter<Int>()
    var iterator = emitter.values.makeAsyncIterator()
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { emitter.send(value) }
    for _ in benchmark.scaledIterations {
      if let value = await iterator.next() { receiver.receive(value) }
    }
    benchmark.stopMeasurement()
  }

  Benchmark(name(scenario, "AsyncStream")) { benchmark in
    let receiver = Receiver()
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { continuation.yield(value) }
    var iterator = stream.makeAsyncIterator()
    for _ in benchmark.scaledIterations {
      if let value = await iterator.next() { receiver.receive(value) }
    }
    benchmark.stopMeasurement()
    continuation.finish()
  }

  #if Peers
    // A channel has no buffer: each send waits for the consumer, so it needs a second task.
    Benchmark(name(scenario, "AsyncChannel (swift-async-algorithms)")) { benchmark in
      let receiver = Receiver()
      let channel = AsyncChannel<Int>()
      let count = benchmark.scaledIterations.count
      benchmark.startMeasurement()
      let producer = Task {
        for value in 0..<count { await channel.send(value) }
      }
      var iterator = channel.makeAsyncIterator()
      for _ in 0..<count {
        if let value = await iterator.next() { receiver.receive(value) }
      }
      await producer.value
      benchmark.stopMeasurement()
      channel.finish()
    }
  #endif
}
