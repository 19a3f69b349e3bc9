import Benchmark
import IndefiniteObservable
import Multicast

#if Peers
  import OpenCombine
#endif

// The operators that RxSwift's and Combine's users reach for (issue 50), one value at a time,
// each beside OpenCombine's where Combine has it. What `Benchmarks/allocations` checks is that
// none allocates per value.

/// Issue 50's scenarios. One operation is one value reaching the subscriber, unless the scenario
/// says otherwise.
func reachedForOperatorBenchmarks() {
  prefixWhileBenchmarks()
  dropWhileBenchmarks()
  untilOutputFromBenchmarks()
  combineLatestOfFourBenchmarks()
  subscribeOnceBenchmarks()
  oursOnlyBenchmarks()
}

/// `prefix(while:)` with a predicate that every value passes.
private func prefixWhileBenchmarks() {
  let scenario = "prefix(while:)"

  streamRow(scenario) { source, receiver in
    source.stream.prefix(while: { $0 >= 0 }).subscribe { receiver.receive($0) }
  }

  #if Peers
    openCombineRow(scenario) { subject, receiver in
      subject.prefix(while: { $0 >= 0 }).sink { receiver.receive($0) }
    }
  #endif
}

/// `drop(while:)`, once the dropping has ended: every later value passes.
private func dropWhileBenchmarks() {
  let scenario = "drop(while:)"

  streamRow(scenario, warmingUp: true) { source, receiver in
    source.stream.drop(while: { $0 < 0 }).subscribe { receiver.receive($0) }
  }

  #if Peers
    openCombineRow(scenario, warmingUp: true) { subject, receiver in
      subject.drop(while: { $0 < 0 }).sink { receiver.receive($0) }
    }
  #endif
}

/// `prefix(untilOutputFrom:)` before its trigger fires, and `drop(untilOutputFrom:)` after it
/// has: every value passes.
private func untilOutputFromBenchmarks() {
  let prefix = "prefix(untilOutputFrom:)"
  let trigger = CallbackList<Int>()
  streamRow(prefix) { source, receiver in
    source.stream.prefix(untilOutputFrom: trigger.stream).subscribe { receiver.receive($0) }
  }

  let drop = "drop(untilOutputFrom:)"
  let opened = CallbackList<Int>()
  streamRow(drop) { source, receiver in
    let subscription = source.stream.drop(untilOutputFrom: opened.stream).subscribe {
      receiver.receive($0)
    }
    opened.send(0)
    return subscription
  }

  #if Peers
    let subjectTrigger = PassthroughSubject<Int, Never>()
    openCombineRow(prefix) { subject, receiver in
      subject.prefix(untilOutputFrom: subjectTrigger).sink { receiver.receive($0) }
    }
    let subjectOpened = PassthroughSubject<Int, Never>()
    openCombineRow(drop) { subject, receiver in
      let cancellable = subject.drop(untilOutputFrom: subjectOpened).sink {
        receiver.receive($0)
      }
      subjectOpened.send(0)
      return cancellable
    }
  #endif
}

/// `combineLatest` of four streams, once each has a value; one operation is a value into the
/// first, and a quadruple out. Ours alone: OpenCombine 0.14 has no `combineLatest`.
private func combineLatestOfFourBenchmarks() {
  let scenario = "combineLatest of four, a value of one"
  let others = (0..<3).map { _ in CallbackList<Int>() }
  streamRow(scenario) { source, receiver in
    let subscription = source.stream.combineLatest(
      others[0].stream, others[1].stream, others[2].stream
    ).subscribe { receiver.receive($0.0 &+ $0.3) }
    source.send(0)
    for other in others { other.send(0) }
    return subscription
  }
}

/// A subscription that ends with its first value: `first(where:)` on a stream that sends at
/// once, a fulfilled `Future`, and `Deferred` of `Just`. One operation is a subscribe, a value
/// and the end of the subscription.
private func subscribeOnceBenchmarks() {
  let first = "first(where:), subscribe to a value"
  let future = "Future, subscribe to a fulfilled one"
  let deferred = "Deferred, subscribe+unsubscribe"

  Benchmark(name(first, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let just = JustOfOurs(1)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      just.first(where: { $0 > 0 }).subscribe { receiver.receive($0) }.unsubscribe()
    }
    benchmark.stopMeasurement()
  }
  Benchmark(name(future, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let fulfilled = Future<Int> { promise in promise(1) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      fulfilled.subscribe(on: .sendingThread) { receiver.receive($0) }.unsubscribe()
    }
    benchmark.stopMeasurement()
  }
  Benchmark(name(deferred, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let stream = ValueObservable.deferred { JustOfOurs(1) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      stream.subscribe { receiver.receive($0) }.unsubscribe()
    }
    benchmark.stopMeasurement()
  }

  #if Peers
    Benchmark(name(first, "OpenCombine")) { benchmark in
      let receiver = Receiver()
      let just = OpenCombine.Just(1)
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        just.first(where: { $0 > 0 }).sink { receiver.receive($0) }.cancel()
      }
      benchmark.stopMeasurement()
    }
    Benchmark(name(future, "OpenCombine")) { benchmark in
      let receiver = Receiver()
      let fulfilled = OpenCombine.Future<Int, Never> { promise in promise(.success(1)) }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        fulfilled.sink { receiver.receive($0) }.cancel()
      }
      benchmark.stopMeasurement()
    }
    Benchmark(name(deferred, "OpenCombine")) { benchmark in
      let receiver = Receiver()
      let stream = OpenCombine.Deferred { OpenCombine.Just(1) }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        stream.sink { receiver.receive($0) }.cancel()
      }
      benchmark.stopMeasurement()
    }
  #endif
}

/// Operators that Combine does not have, ours alone, for the allocation check: each value
/// passes `withLatestFrom`, `pairwise`, `enumerated` and `scan(into:)`.
private func oursOnlyBenchmarks() {
  let latest = CallbackList<Int>()
  streamRow("withLatestFrom", warmingUp: true) { source, receiver in
    let subscription = source.stream.withLatestFrom(latest.stream) { $0 &+ $1 }.subscribe {
      receiver.receive($0)
    }
    latest.send(1)
    return subscription
  }
  streamRow("pairwise", warmingUp: true) { source, receiver in
    source.stream.pairwise().subscribe { receiver.receive($0.0 &+ $0.1) }
  }
  streamRow("enumerated") { source, receiver in
    source.stream.enumerated().subscribe { receiver.receive($0.offset &+ $0.element) }
  }
  streamRow("scan(into:)") { source, receiver in
    source.stream.scan(into: 0) { $0 &+= $1 }.subscribe { receiver.receive($0) }
  }
}
