import Benchmark
import IndefiniteObservable
import Multicast

#if Peers
  import OpenCombine
#endif

// The operators beyond map and filter, each beside OpenCombine's equivalent, one value at a time.
// Our streams come from `CallbackList` sources and OpenCombine's from `PassthroughSubject`s; every
// subscriber hands its values to a `Receiver`. What these scenarios check first is that no
// operator allocates per value; the times show what each costs beside Combine's.

/// The new operators' scenarios. One operation is one value reaching the subscriber, unless the
/// scenario says otherwise.
func operatorBenchmarks() {
  dropFirstBenchmarks()
  prefixBenchmarks()
  zipBenchmarks()
  combineLatestBenchmarks()
  mergeBenchmarks()
  switchToLatestBenchmarks()
  shareBenchmarks()
  combineOperatorBenchmarks()
  reachedForOperatorBenchmarks()
  timedOperatorBenchmarks()
  receiveOnBenchmarks()
}

/// `dropFirst()`, measured once the dropped value has passed.
private func dropFirstBenchmarks() {
  let scenario = "dropFirst"

  streamRow(scenario, warmingUp: true) { source, receiver in
    source.stream.dropFirst().subscribe { receiver.receive($0) }
  }

  #if Peers
    openCombineRow(scenario, warmingUp: true) { subject, receiver in
      subject.dropFirst().sink { receiver.receive($0) }
    }
  #endif
}

/// `prefix(_:)` with a length that no run reaches, so that every value passes.
private func prefixBenchmarks() {
  let scenario = "prefix"

  streamRow(scenario) { source, receiver in
    source.stream.prefix(.max).subscribe { receiver.receive($0) }
  }

  #if Peers
    openCombineRow(scenario) { subject, receiver in
      subject.prefix(.max).sink { receiver.receive($0) }
    }
  #endif
}

/// `zip` of two streams; one operation is one pair: a value into each stream. A first pair is
/// sent before the measurement, because the first value to wait allocates the subscription's
/// buffer (once; it allocates again only to grow).
private func zipBenchmarks() {
  let scenario = "zip, one pair"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let left = CallbackList<Int>()
    let right = CallbackList<Int>()
    let subscription = left.stream.zip(right.stream).subscribe { receiver.receive($0 &+ $1) }
    left.send(0)
    right.send(0)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations {
      left.send(value)
      right.send(value)
    }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let left = PassthroughSubject<Int, Never>()
      let right = PassthroughSubject<Int, Never>()
      let cancellable = left.zip(right).sink { receiver.receive($0 &+ $1) }
      left.send(0)
      right.send(0)
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations {
        left.send(value)
        right.send(value)
      }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// `combineLatest` of three streams, as a tuple and from an array; each value goes into one of
/// the three in turn, once all three have delivered. OpenCombine 0.14.0 has no `combineLatest`
/// at all, so these measure ours alone: what they check is that it allocates nothing per value.
private func combineLatestBenchmarks() {
  let three = "combineLatest of three"

  Benchmark(name(three, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let sources = (0..<3).map { _ in CallbackList<Int>() }
    let subscription = sources[0].stream.combineLatest(sources[1].stream, sources[2].stream)
      .subscribe { receiver.receive($0 &+ $1 &+ $2) }
    for source in sources { source.send(0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { sources[value % 3].send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  let array = "combineLatest of an array of three"

  Benchmark(name(array, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let sources = (0..<3).map { _ in CallbackList<Int>() }
    let subscription = sources.map(\.stream).combineLatest()
      .subscribe { receiver.receive($0[0] &+ $0[1] &+ $0[2]) }
    for source in sources { source.send(0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { sources[value % 3].send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }
}

/// `merge()` of an array of three streams; each value goes into one of the three in turn.
private func mergeBenchmarks() {
  let scenario = "merge of an array of three"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let sources = (0..<3).map { _ in CallbackList<Int>() }
    let subscription = sources.map(\.stream).merge().subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { sources[value % 3].send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
      // OpenCombine 0.14.0 has no `MergeMany`; a merge of a sequence of publishers is the
      // sequence's publisher flat-mapped, as Combine users composed it before `MergeMany`.
      let cancellable = subjects.publisher.flatMap { $0 }.sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subjects[value % 3].send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// `switchToLatest`: values through the latest inner stream, and switching to a new one (which
/// subscribes to it, so it allocates what a subscription allocates). The inner sources of the
/// switch have room for their callback before the measurement starts, so that their arrays' first
/// allocations are not counted.
private func switchToLatestBenchmarks() {
  let values = "switchToLatest"

  Benchmark(name(values, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let streams = CallbackList<ValueObservable<Int>>()
    let inner = CallbackList<Int>()
    let subscription = streams.stream.switchToLatest().subscribe { receiver.receive($0) }
    streams.send(inner.stream)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { inner.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(values, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subjects = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
      let inner = PassthroughSubject<Int, Never>()
      let cancellable = subjects.switchToLatest().sink { receiver.receive($0) }
      subjects.send(inner)
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { inner.send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif

  let switching = "switchToLatest, one switch"

  Benchmark(name(switching, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let streams = CallbackList<ValueObservable<Int>>()
    let inners = [CallbackList<Int>(capacity: 1), CallbackList<Int>(capacity: 1)]
    let innerStreams = inners.map(\.stream)
    let subscription = streams.stream.switchToLatest().subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { streams.send(innerStreams[value % 2]) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(switching, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subjects = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
      let inners = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
      let cancellable = subjects.switchToLatest().sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subjects.send(inners[value % 2]) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// How many subscribers share one upstream in the `share()` scenario.
private let sharingSubscribers = 10

/// `share()`: one upstream, 10 subscribers, measured per delivery (a value sent reaches 10).
private func shareBenchmarks() {
  let scenario = "share, one delivery of 10"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let shared = source.stream.share()
    let subscriptions = (0..<sharingSubscribers).map { _ in
      shared.subscribe { receiver.receive($0) }
    }
    benchmark.startMeasurement()
    for value in 0..<benchmark.scaledIterations.count / sharingSubscribers { source.send(value) }
    benchmark.stopMeasurement()
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let shared = subject.share()
      let cancellables = (0..<sharingSubscribers).map { _ in shared.sink { receiver.receive($0) } }
      benchmark.startMeasurement()
      for value in 0..<benchmark.scaledIterations.count / sharingSubscribers { subject.send(value) }
      benchmark.stopMeasurement()
      for cancellable in cancellables { cancellable.cancel() }
    }
  #endif
}
