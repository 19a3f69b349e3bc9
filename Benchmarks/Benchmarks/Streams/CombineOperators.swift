import Benchmark
import IndefiniteObservable
import Multicast

#if Peers
  import OpenCombine
#endif

// The operators of issue 33, one value at a time (or one subscribe), each beside OpenCombine's
// equivalent. What `Benchmarks/allocations` checks is that none allocates per value more than
// its contract says: `collect` one array per batch, `print` the line it writes.

/// Issue 33's scenarios. One operation is one value reaching the subscriber, unless the
/// scenario says otherwise.
func combineOperatorBenchmarks() {
  flatMapBenchmarks()
  outputInBenchmarks()
  zipOfThreeAndFourBenchmarks()
  collectBenchmarks()
  replaceNilBenchmarks()
  handleEventsBenchmarks()
  printBenchmarks()
  assignBenchmarks()
  justBenchmarks()
  connectableBenchmarks()
}

/// `flatMap` with three inner streams connected; each value goes into one of them in turn.
private func flatMapBenchmarks() {
  let scenario = "flatMap, a value of one of three inner streams"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let outer = CallbackList<Int>()
    let inners = (0..<3).map { _ in CallbackList<Int>() }
    let innerStreams = inners.map(\.stream)
    let subscription = outer.stream.flatMap { innerStreams[$0] }.subscribe { receiver.receive($0) }
    for index in inners.indices { outer.send(index) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { inners[value % 3].send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let outer = PassthroughSubject<Int, Never>()
      let inners = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
      let cancellable = outer.flatMap { inners[$0] }.sink { receiver.receive($0) }
      for index in inners.indices { outer.send(index) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { inners[value % 3].send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// `output(in: 1..<Int.max)`, once the first value has been dropped: every later value passes.
private func outputInBenchmarks() {
  let scenario = "output(in:)"

  streamRow(scenario, warmingUp: true) { source, receiver in
    source.stream.output(in: 1..<Int.max).subscribe { receiver.receive($0) }
  }

  #if Peers
    openCombineRow(scenario, warmingUp: true) { subject, receiver in
      subject.output(in: 1..<Int.max).sink { receiver.receive($0) }
    }
  #endif
}

/// `zip` of three and of four streams; one operation is one tuple: a value into each stream. A
/// first tuple is sent before the measurement, so that the buffers have their storage.
private func zipOfThreeAndFourBenchmarks() {
  let three = "zip of three, one triple"

  Benchmark(name(three, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let sources = (0..<3).map { _ in CallbackList<Int>() }
    let subscription = sources[0].stream.zip(sources[1].stream, sources[2].stream)
      .subscribe { receiver.receive($0 &+ $1 &+ $2) }
    for source in sources { source.send(0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations {
      for source in sources { source.send(value) }
    }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(three, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
      let cancellable = subjects[0].zip(subjects[1], subjects[2])
        .sink { receiver.receive($0 &+ $1 &+ $2) }
      for subject in subjects { subject.send(0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations {
        for subject in subjects { subject.send(value) }
      }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif

  let four = "zip of four, one quadruple"

  Benchmark(name(four, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let sources = (0..<4).map { _ in CallbackList<Int>() }
    let subscription = sources[0].stream.zip(
      sources[1].stream, sources[2].stream, sources[3].stream
    )
    .subscribe { receiver.receive($0 &+ $1 &+ $2 &+ $3) }
    for source in sources { source.send(0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations {
      for source in sources { source.send(value) }
    }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(four, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
      let cancellable = subjects[0].zip(subjects[1], subjects[2], subjects[3])
        .sink { receiver.receive($0 &+ $1 &+ $2 &+ $3) }
      for subject in subjects { subject.send(0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations {
        for subject in subjects { subject.send(value) }
      }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// `collect(10)`; one operation is one value (a batch every 10), each batch an array.
private func collectBenchmarks() {
  let scenario = "collect, batches of 10"

  streamRow(scenario) { source, receiver in
    source.stream.collect(10).subscribe { receiver.receive($0.count) }
  }

  #if Peers
    openCombineRow(scenario) { subject, receiver in
      subject.collect(10).sink { receiver.receive($0.count) }
    }
  #endif
}

/// `replaceNil(with:)`; every other value is nil.
private func replaceNilBenchmarks() {
  let scenario = "replaceNil"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int?>()
    let subscription = source.stream.replaceNil(with: -1).subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value % 2 == 0 ? value : nil) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int?, Never>()
      let cancellable = subject.replaceNil(with: -1).sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value % 2 == 0 ? value : nil) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// `handleEvents` with an effect for each value.
private func handleEventsBenchmarks() {
  let scenario = "handleEvents"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let effects = Receiver()
    let source = CallbackList<Int>()
    let subscription = source.stream.handleEvents(receiveOutput: { effects.receive($0) })
      .subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let effects = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let cancellable = subject.handleEvents(receiveOutput: { effects.receive($0) })
        .sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// A text stream that counts what it is given and keeps nothing.
private final class DiscardedText: TextOutputStream {
  var characters = 0
  func write(_ string: String) { characters &+= string.utf8.count }
}

/// `print(_:to:)` to a stream that keeps nothing: what is measured is making each line.
private func printBenchmarks() {
  let scenario = "print, one line"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let text = DiscardedText()
    let source = CallbackList<Int>()
    let subscription = source.stream.print("p", to: text).subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value % 10) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
    blackHole(text.characters)
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let text = DiscardedText()
      let subject = PassthroughSubject<Int, Never>()
      let cancellable = subject.print("p", to: text).sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value % 10) }
      benchmark.stopMeasurement()
      cancellable.cancel()
      blackHole(text.characters)
    }
  #endif
}

/// An object whose property `assign(to:on:)` writes.
private final class Target {
  var value = 0
}

/// `assign(to:on:)`: one write of a property through a key path.
private func assignBenchmarks() {
  let scenario = "assign"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let target = Target()
    let source = CallbackList<Int>()
    let subscription = source.stream.assign(to: \.value, on: target)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
    blackHole(target.value)
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let target = Target()
      let subject = PassthroughSubject<Int, Never>()
      let cancellable = subject.assign(to: \.value, on: target)
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
      blackHole(target.value)
    }
  #endif
}

/// `Just`: one operation is a subscribe, which delivers the value, and its unsubscribe.
private func justBenchmarks() {
  let scenario = "Just, subscribe+unsubscribe"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let just = JustOfOurs(1)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      just.subscribe { receiver.receive($0) }.unsubscribe()
    }
    benchmark.stopMeasurement()
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine")) { benchmark in
      let receiver = Receiver()
      let just = OpenCombine.Just(1)
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        just.sink { receiver.receive($0) }.cancel()
      }
      benchmark.stopMeasurement()
    }
  #endif
}

/// `makeConnectable()`, connected, with 10 subscribers: measured per delivery, as `share()` is.
private func connectableBenchmarks() {
  let scenario = "makeConnectable, one delivery of 10"
  let subscribers = 10

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let connectable = source.stream.makeConnectable()
    let subscriptions = (0..<subscribers).map { _ in
      connectable.subscribe { receiver.receive($0) }
    }
    let connection = connectable.connect()
    benchmark.startMeasurement()
    for value in 0..<benchmark.scaledIterations.count / subscribers { source.send(value) }
    benchmark.stopMeasurement()
    connection.unsubscribe()
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let connectable = subject.makeConnectable()
      let cancellables = (0..<subscribers).map { _ in connectable.sink { receiver.receive($0) } }
      let connection = connectable.connect()
      benchmark.startMeasurement()
      for value in 0..<benchmark.scaledIterations.count / subscribers { subject.send(value) }
      benchmark.stopMeasurement()
      connection.cancel()
      for cancellable in cancellables { cancellable.cancel() }
    }
  #endif
}
