import Benchmark
import IndefiniteObservable

#if Peers
  import OpenCombine
#endif

/// Our row of a one-source scenario: `subscribe` subscribes to a `CallbackList`'s stream and
/// hands what comes out to the receiver. With `warmingUp`, a value (0) is sent before the
/// measurement, so that the operators have their storage. Then one value an operation, and the
/// subscription ends after the measurement. OpenCombine's row of the scenario has the same
/// shape (`openCombineRow`), so the two measure the same thing.
func streamRow(
  _ scenario: String, warmingUp: Bool = false,
  _ subscribe: @escaping (CallbackList<Int>, Receiver) -> StreamSubscription
) {
  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let subscription = subscribe(source, receiver)
    if warmingUp { source.send(0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }
}

#if Peers
  /// OpenCombine's row of a one-source scenario, in the shape of ours (`streamRow`): a
  /// `PassthroughSubject` in place of the `CallbackList`, a cancellable in place of the
  /// subscription.
  func openCombineRow(
    _ scenario: String, warmingUp: Bool = false,
    _ subscribe: @escaping (PassthroughSubject<Int, Never>, Receiver) -> AnyCancellable
  ) {
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let cancellable = subscribe(subject, receiver)
      if warmingUp { subject.send(0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  }
#endif
