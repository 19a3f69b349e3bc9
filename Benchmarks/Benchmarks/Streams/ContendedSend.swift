import Benchmark
import Dispatch
import Foundation
import IndefiniteObservable
import Multicast

#if Peers
  import OpenCombine
#endif

/// How many subscribers the contended source has, and how many sends one operation makes.
let contendedSubscribers = 10
let sendsPerOperation = 100

/// Scenario 4: two threads sending into one multicast source (ours: a `SendableEmitter`, whose
/// `@Sendable` subscribers run on the sending thread) with 10 subscribers at the same time. One
/// operation is 100 sends, 50 from each thread; the report divides it back into one send.
func contendedSendBenchmarks() {
  let scenario = "contended send"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    let receiver = Receiver()
    let emitter = SendableEmitter<Int>()
    let subscriptions = (0..<contendedSubscribers).map { _ in
      emitter.subscribe(on: .sendingThread) { receiver.receive($0) }
    }
    let sends = benchmark.scaledIterations.count * sendsPerOperation / 2
    let pair = ThreadPair()
    benchmark.startMeasurement()
    pair.run { for value in 0..<sends { emitter.send(value) } }
    benchmark.stopMeasurement()
    pair.stop()
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  #if Peers
    Benchmark(name(scenario, "OpenCombine PassthroughSubject")) { benchmark in
      let receiver = Receiver()
      let subject = PassthroughSubject<Int, Never>()
      let cancellables = (0..<contendedSubscribers).map { _ in subject.sink { receiver.receive($0) }
      }
      let sends = benchmark.scaledIterations.count * sendsPerOperation / 2
      let sender = UncheckedSendable(subject)
      let pair = ThreadPair()
      benchmark.startMeasurement()
      pair.run { for value in 0..<sends { sender.value.send(value) } }
      benchmark.stopMeasurement()
      pair.stop()
      for cancellable in cancellables { cancellable.cancel() }
    }
  #endif
}

/// A value handed to another thread on purpose: the type under test promises thread-safety
/// that the compiler cannot see (OpenCombine's subjects are not marked `Sendable`).
struct UncheckedSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// The benchmark thread and one more thread, which run the same job at the same time.
final class ThreadPair: @unchecked Sendable {
  // `job` and `stopping` are written before `start` is signalled and read by the second thread
  // only after it has waited for `start`; the semaphores order every access.
  private var job: @Sendable () -> Void = {}
  private var stopping = false
  private let start = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)

  init() {
    let thread = Thread { [self] in
      while true {
        start.wait()
        if stopping { break }
        job()
        done.signal()
      }
      done.signal()
    }
    thread.start()
  }

  /// Runs `job` on both threads at once and returns when both have finished.
  func run(_ job: @escaping @Sendable () -> Void) {
    self.job = job
    start.signal()
    job()
    done.wait()
  }

  /// Ends the second thread.
  func stop() {
    stopping = true
    start.signal()
    done.wait()
  }
}
