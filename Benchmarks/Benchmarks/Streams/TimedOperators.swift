import Benchmark
import Dispatch
import Foundation
import IndefiniteObservable
import Producers
import Synchronization

#if Peers
  import OpenCombine
  import OpenCombineDispatch
#endif

// The operators that wait on a clock, each beside OpenCombine's equivalent on a DispatchQueue.
// One operation is one value sent while a wait is pending: the interval is an hour, so no timer
// fires during a sample, and what is measured is what each value costs while its operator waits.
// Ours belong to an actor (their `isolation`), so they are made, sent into and measured on one:
// `TimedStreams`, which the benchmark closure awaits. No task runs on that actor while a sample
// is measured (the measuring method never suspends), so our operators' waiting task starts only
// after the subscription has ended, and ends at once.

/// How long every timed operator waits, in seconds: longer than any run, so no timer fires.
private let longWaitSeconds = 3_600
private let longWait = Duration.seconds(longWaitSeconds)

/// The timed operators' scenarios.
func timedOperatorBenchmarks() {
  debounceBenchmarks()
  throttleBenchmarks()
  delayBenchmarks()
}

/// `debounce`: every value of a burst, after the first, which started the wait.
private func debounceBenchmarks() {
  let scenario = "debounce, while waiting"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    await TimedStreams().debounce(UncheckedSendable(benchmark))
  }

  #if Peers
    openCombineRow(scenario, warmingUp: true) { subject, receiver in
      let scheduler = DispatchQueue.OCombine(DispatchQueue(label: "debounce"))
      return subject.debounce(for: .seconds(longWaitSeconds), scheduler: scheduler)
        .sink { receiver.receive($0) }
    }
  #endif
}

/// `throttle(latest: true)`: every value held for the end of a window, once the first value has
/// passed and the second has started the wait.
private func throttleBenchmarks() {
  let scenario = "throttle, while waiting"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    await TimedStreams().throttle(UncheckedSendable(benchmark))
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let queue = DispatchQueue(label: "throttle")
      let scheduler = DispatchQueue.OCombine(queue)
      let cancellable = subject.throttle(
        for: .seconds(longWaitSeconds), scheduler: scheduler, latest: true
      ).sink { receiver.receive($0) }
      // OpenCombine passes the first value on the queue, not at once: once it has, the next value
      // starts the wait.
      subject.send(0)
      queue.sync {}
      subject.send(0)
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// `delay`: every value, each waiting. OpenCombine schedules a Dispatch work item per value
/// that cannot be cancelled, and those of every sample stay in Dispatch for the hour, so the
/// scenario takes at most 200 samples.
private func delayBenchmarks() {
  let scenario = "delay, values waiting"
  var configuration = Benchmark.defaultConfiguration
  configuration.maxIterations = min(configuration.maxIterations, 200)

  Benchmark(name(scenario, "IndefiniteObservable"), configuration: configuration) { benchmark in
    await TimedStreams().delay(UncheckedSendable(benchmark))
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject"), configuration: configuration) {
      benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let scheduler = DispatchQueue.OCombine(DispatchQueue(label: "delay"))
      let cancellable = subject.delay(for: .seconds(longWaitSeconds), scheduler: scheduler)
        .sink { receiver.receive($0) }
      benchmark.startMeasurement()
      for value in benchmark.scaledIterations { subject.send(value) }
      benchmark.stopMeasurement()
      cancellable.cancel()
    }
  #endif
}

/// The actor our timed operators belong to in these benchmarks. Each method measures one sample.
///
/// The `Benchmark` object comes in unchecked: it is not `Sendable`, and the benchmark closure
/// that hands it over awaits the method, so only the actor touches it meanwhile.
private actor TimedStreams {
  func debounce(_ benchmark: UncheckedSendable<Benchmark>) {
    let benchmark = benchmark.value
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let subscription = source.stream.debounce(for: longWait).subscribe { receiver.receive($0) }
    source.send(0)  // starts the wait: arms the subscription's Dispatch timer
    settleDispatch()
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  func throttle(_ benchmark: UncheckedSendable<Benchmark>) {
    let benchmark = benchmark.value
    let receiver = Receiver()
    let source = CallbackList<Int>()
    let subscription = source.stream.throttle(for: longWait, latest: true)
      .subscribe { receiver.receive($0) }
    source.send(0)  // passes at once
    source.send(0)  // starts the wait: arms the subscription's Dispatch timer
    settleDispatch()
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  /// A delay's queue of waiting values grows by doubling: here it has grown before the
  /// measurement to hold every value of the sample, as a subscription's queue has once as many
  /// values have been in flight. The values that grew it are delivered (the clock skips past
  /// their deadline) before the measured ones are sent.
  func delay(_ benchmark: UncheckedSendable<Benchmark>) async {
    let benchmark = benchmark.value
    let receiver = Receiver()
    let count = benchmark.scaledIterations.count
    let clock = SkippingClock()
    let source = CallbackList<Int>()
    var delivered = 0
    let subscription = source.stream.delay(for: longWait, clock: clock).subscribe {
      delivered += 1
      receiver.receive($0)
    }
    for value in 0...count { source.send(value) }
    clock.skip(longWait)
    while delivered <= count { await Task.yield() }
    source.send(0)  // starts the wait (a task that sleeps on the clock)
    benchmark.startMeasurement()
    for value in benchmark.scaledIterations { source.send(value) }
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }
}

/// Lets Dispatch finish arming a timer before a sample is measured: `schedule` hands the new
/// deadline to the timer's queue, which applies it (and allocates for it) a moment later, on
/// another thread; counted during the sample, that allocation made the count 0 or 1 by timing.
private func settleDispatch() {
  usleep(20_000)
}

/// A continuous clock that can be moved forward: `skip(_:)` makes the deadlines within that
/// duration due at once. A sleep already under way is not shortened.
private struct SkippingClock: Clock {
  typealias Instant = ContinuousClock.Instant

  private let base = ContinuousClock()
  private let skipped = Skipped()

  private final class Skipped: Sendable {
    let nanoseconds = Atomic<Int64>(0)
  }

  var now: Instant {
    base.now + .nanoseconds(skipped.nanoseconds.load(ordering: .relaxed))
  }

  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let skipped = Duration.nanoseconds(self.skipped.nanoseconds.load(ordering: .relaxed))
    try await base.sleep(until: deadline - skipped, tolerance: tolerance)
  }

  /// Moves this clock forward by `duration`.
  func skip(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    skipped.nanoseconds.add(nanoseconds, ordering: .relaxed)
  }
}
