import Benchmark
import Foundation
import IndefiniteObservable

#if Peers
  import OpenCombine
#endif

/// Scenario 1: one value through `map` then `filter` to one subscriber.
func chainBenchmarks() {
  let scenario = "chain"

  streamRow(scenario) { source, receiver in
    source.stream
      .map { transform($0) }
      .filter { isIncluded($0) }
      .subscribe { receiver.receive($0) }
  }

  Benchmark(name(scenario, "hand-written closures (floor)")) { benchmark in
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let id = source.add { value in
      let transformed = transform(value)
      if isIncluded(transformed) { receiver.receive(transformed) }
    }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    source.remove(id)
  }

  #if Peers
    openCombineRow(scenario) { subject, receiver in
      subject
        .map { transform($0) }
        .filter { isIncluded($0) }
        .sink { receiver.receive($0) }
    }
  #endif

  // The same chain and floor on a source that does no reference counting per send, to show what
  // each adds to a source that costs almost nothing.
  let cheapest = "chain, append-only source"

  Benchmark(name(cheapest, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let source = AppendOnlyList<Int>()
    let subscription = source.stream
      .map { transform($0) }
      .filter { isIncluded($0) }
      .subscribe { receiver.receive($0) }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  Benchmark(name(cheapest, "hand-written closures (floor)")) { benchmark in
    let receiver = Receiver()
    let source = AppendOnlyList<Int>()
    source.add { value in
      let transformed = transform(value)
      if isIncluded(transformed) { receiver.receive(transformed) }
    }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
  }

  // What any operator that keeps its user's closures as closure values must do per value, as ours
  // and Combine's do: call the transform, the predicate and the subscriber's closure, each through
  // its closure value. The floor above calls one closure, into which the compiler inlines all
  // three. `StoredClosures` is made by a function that is not inlined, as a library's operator
  // receives its closures, so the optimizer cannot read the closures back and inline them here.
  Benchmark(name(cheapest, storedClosuresFloor)) { benchmark in
    let receiver = Receiver()
    let source = AppendOnlyList<Int>()
    let stored = StoredClosures.make(
      transform: { transform($0) }, isIncluded: { isIncluded($0) }, next: { receiver.receive($0) })
    source.add { value in
      let transformed = stored.transform(value)
      if stored.isIncluded(transformed) { stored.next(transformed) }
    }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
  }

  // The same closures kept as generic values, as a generic operator (`map<U>`) receives and keeps
  // them: Swift calls such a closure with its argument and result in memory.
  Benchmark(name(cheapest, genericClosuresFloor)) { benchmark in
    let receiver = Receiver()
    let source = AppendOnlyList<Int>()
    let stored = GenericClosures<Int, Int>.make(
      transform: { transform($0) }, isIncluded: { isIncluded($0) }, next: { receiver.receive($0) })
    source.add { value in
      let transformed = stored.transform(value)
      if stored.isIncluded(transformed) { stored.next(transformed) }
    }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
  }

  // AsyncStream's cheapest path: the values are buffered, then read by the same task, so no
  // value waits for a suspended consumer to be scheduled. A consumer in another task costs more.
  Benchmark(name(scenario, "AsyncStream")) { benchmark in
    let receiver = Receiver()
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { continuation.yield(value) }
    continuation.finish()
    for await value in stream.map({ transform($0) }).filter({ isIncluded($0) }) {
      receiver.receive(value)
    }
    benchmark.stopMeasurement()
  }

  Benchmark(name(scenario, "NotificationCenter")) { benchmark in
    let receiver = Receiver()
    let center = NotificationCenter()
    let token = center.addObserver(forName: valueNotification, object: nil, queue: nil) {
      let transformed = transform($0.userInfo?[valueKey] as? Int ?? 0)
      if isIncluded(transformed) { receiver.receive(transformed) }
    }
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations {
      center.post(name: valueNotification, object: nil, userInfo: [valueKey: value])
    }
    benchmark.stopMeasurement()
    center.removeObserver(token)
  }
}

/// The notification the NotificationCenter peers post; the value travels in `userInfo`.
let valueNotification = Notification.Name("value")
let valueKey = "value"

/// The implementation name of the floor of stored closures (see its benchmark above).
let storedClosuresFloor = "hand-written, the closures kept as values"

/// A chain's three closures, kept as closure values of their concrete types: the least an operator
/// that stores its user's closures can hold (ours are generic, which costs more).
final class StoredClosures {
  let transform: (Int) -> Int
  let isIncluded: (Int) -> Bool
  let next: (Int) -> Void

  private init(
    _ transform: @escaping (Int) -> Int, _ isIncluded: @escaping (Int) -> Bool,
    _ next: @escaping (Int) -> Void
  ) {
    self.transform = transform
    self.isIncluded = isIncluded
    self.next = next
  }

  /// Not inlined, so that the caller cannot see which closures it stored.
  @inline(never)
  static func make(
    transform: @escaping (Int) -> Int, isIncluded: @escaping (Int) -> Bool,
    next: @escaping (Int) -> Void
  ) -> StoredClosures {
    let stored = StoredClosures(transform, isIncluded, next)
    blackHole(stored)
    return stored
  }
}

/// The implementation name of the floor of closures kept as generic values.
let genericClosuresFloor = "hand-written, the closures kept as generic values"

/// ``StoredClosures`` generic over the chain's types, as an operator's closures are.
final class GenericClosures<Input, Output> {
  let transform: (Input) -> Output
  let isIncluded: (Output) -> Bool
  let next: (Output) -> Void

  private init(
    _ transform: @escaping (Input) -> Output, _ isIncluded: @escaping (Output) -> Bool,
    _ next: @escaping (Output) -> Void
  ) {
    self.transform = transform
    self.isIncluded = isIncluded
    self.next = next
  }

  /// Not inlined, so that the caller cannot see which closures it stored.
  @inline(never)
  static func make(
    transform: @escaping (Input) -> Output, isIncluded: @escaping (Output) -> Bool,
    next: @escaping (Output) -> Void
  ) -> GenericClosures {
    let stored = GenericClosures(transform, isIncluded, next)
    blackHole(stored)
    return stored
  }
}
