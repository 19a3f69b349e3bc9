import Benchmark
import Dispatch
import IndefiniteObservable
import Producers

// A repeating timer's cost per tick, delivered to an actor: `Timers.every` beside the floor, a
// bare `DispatchSourceTimer` whose handler hops to the same actor with a task (what a user would
// write by hand), and a bare `DispatchSourceTimer` that counts on its own queue (no hop at all).
// One sample is 1,000 ticks at 1 ms; the metric that matters is CPU time (user + system, of
// the whole process: the timer's queue, the hop and the actor), which the report divides by
// 1,000: the CPU one tick costs. Wall time is the interval, and says nothing here.

/// The timer rows.
func timerTickBenchmarks() {
  let scenario = "timer tick, 1 ms"
  var configuration = Benchmark.defaultConfiguration
  configuration.metrics =
    checkingAllocations ? [.mallocCountTotal] : [.cpuTotal, .mallocCountTotal]
  configuration.maxIterations = checkingAllocations ? allocationCheckSamples : 5
  configuration.maxDuration = .seconds(10)

  Benchmark(name(scenario, "IndefiniteObservable"), configuration: configuration) { benchmark in
    await TickCounter().timers(UncheckedSendable(benchmark))
  }

  Benchmark(
    name(scenario, "DispatchSourceTimer, a task to the actor (floor)"), configuration: configuration
  ) {
    benchmark in
    await TickCounter().dispatchTimer(UncheckedSendable(benchmark))
  }

  Benchmark(name(scenario, "DispatchSourceTimer, no hop"), configuration: configuration) {
    benchmark in
    let ticks = benchmark.scaledIterations.count
    let done = DispatchSemaphore(value: 0)
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "no hop"))
    let counted = UncheckedSendable(Counted())
    timer.setEventHandler { [counted] in
      counted.value.count += 1
      if counted.value.count == ticks { done.signal() }
    }
    benchmark.startMeasurement()
    timer.schedule(deadline: .now() + .milliseconds(1), repeating: .milliseconds(1))
    timer.activate()
    done.wait()
    benchmark.stopMeasurement()
    timer.cancel()
  }
}

/// A count touched only on the timer's queue.
private final class Counted {
  var count = 0
}

/// The actor the ticks are delivered to. Each method measures one sample: it returns once the
/// actor has received the sample's ticks.
private actor TickCounter {
  private var count = 0
  private var target = 0
  private var reached: CheckedContinuation<Void, Never>?

  private func tick() {
    count += 1
    if count == target { reached.take()?.resume() }
  }

  private func ticks(_ target: Int) async {
    self.target = target
    await withCheckedContinuation { reached = $0 }
  }

  func timers(_ benchmark: UncheckedSendable<Benchmark>) async {
    let benchmark = benchmark.value
    benchmark.startMeasurement()
    let subscription = Timers.every(.milliseconds(1)).subscribe { _ in self.tick() }
    await ticks(benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
    subscription.unsubscribe()
  }

  func dispatchTimer(_ benchmark: UncheckedSendable<Benchmark>) async {
    let benchmark = benchmark.value
    benchmark.startMeasurement()
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "floor"))
    timer.setEventHandler { @Sendable [self] in Task { await self.tick() } }
    timer.schedule(deadline: .now() + .milliseconds(1), repeating: .milliseconds(1))
    timer.activate()
    await ticks(benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
    timer.cancel()
  }
}
