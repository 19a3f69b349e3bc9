import Benchmark
import Dispatch
import IndefiniteObservable
import Multicast

#if Peers
  import OpenCombine
  import OpenCombineDispatch
#endif

/// `receive(on:)` a serial DispatchQueue: one value reaching a subscriber that runs on the queue.
/// A sample sends 1,000 values from the benchmark's thread, then waits for the queue to have run
/// them all (`queue.sync {}`), so the time covers both threads' work. The floor hands each value
/// to the queue itself, with `async`, as code without a stream library would.
func receiveOnBenchmarks() {
  let scenario = "receive(on:) a queue"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let queue = DispatchQueue(label: "receive(on:)")
    let subscription = source.stream.receive(on: queue).subscribe { @Sendable value in
      receiver.receive(value)
    }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    queue.sync {}
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let queue = DispatchQueue(label: "receive(on:)")
      let cancellable = subject.receive(on: DispatchQueue.OCombine(queue))
        .sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value) }
      queue.sync {}
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif

  Benchmark(name(scenario, "hand-written closures (floor)")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let queue = DispatchQueue(label: "receive(on:)")
    let id = source.add { value in queue.async { receiver.receive(value) } }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    queue.sync {}
    benchmark.stopMeasurement()
    source.remove(id)
  }
}
