import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Tests that raise signals in the test runner's process. They use only SIGUSR1 and SIGUSR2,
/// whose disposition each test first sets to a harmless handler of its own (and checks is back
/// at the end), so a stray signal can never kill the runner.
@MainActor @Suite(.serialized, .checksLiveResources, .leavesEveryDispositionAsItWas)
struct SignalsTests {
  @Test func everySubscriberOfASignalReceivesEachDelivery() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      let stream = try Signals.deliveries(of: SIGUSR1)
      let recorders = (0..<3).map { _ in Recorder<UnixSignal>() }
      let subscriptions = [
        stream.subscribe(recorders[0].record),
        stream.subscribe(recorders[1].record),
        try Signals.deliveries(of: SIGUSR1).subscribe(recorders[2].record),
      ]
      for count in 1...3 {
        raiseSynchronously(SIGUSR1)
        for recorder in recorders { #expect(await recorder.arrival(ofCount: count)) }
      }
      for subscription in subscriptions { subscription.unsubscribe() }
      for recorder in recorders {
        #expect(recorder.values.map(\.rawValue) == [SIGUSR1, SIGUSR1, SIGUSR1])
      }
    }
  }

  /// A signal reaches only the subscribers of that signal: the deliveries of SIGUSR1 make no
  /// job on the actor of a subscriber of SIGUSR2 alone (a broadcast that each subscriber
  /// filtered on its actor would hop there once for each).
  @Test func aSignalReachesOnlyItsOwnSubscribers() async throws {
    try await withHarmlessHandlers(SIGUSR1, SIGUSR2) {
      let user1 = Recorder<UnixSignal>()
      let user1Subscription = try Signals.deliveries(of: SIGUSR1).subscribe(user1.record)
      let other = JobCountingActor()
      let user2 = Recorder<UnixSignal>()
      try await other.subscribe(to: SIGUSR2, recording: user2)
      let jobsBefore = other.executor.jobs
      for count in 1...5 {
        raiseSynchronously(SIGUSR1)
        #expect(await user1.arrival(ofCount: count))
      }
      // The reader hands out signals in the order they arrived: once SIGUSR2 is on the other
      // actor, any hop that the SIGUSR1 deliveries made there has run too.
      raiseSynchronously(SIGUSR2)
      #expect(await user2.arrival(ofCount: 1))
      #expect(other.executor.jobs - jobsBefore == 1, "only SIGUSR2 went to its subscriber's actor")
      #expect(user2.values.map(\.rawValue) == [SIGUSR2])
      await other.unsubscribe()
      user1Subscription.unsubscribe()
    }
  }

  @Test func oneStreamDeliversSeveralSignalsInTheOrderTheyArrived() async throws {
    try await withHarmlessHandlers(SIGUSR1, SIGUSR2) {
      let recorder = Recorder<UnixSignal>()
      let subscription = try Signals.deliveries(of: SIGUSR1, SIGUSR2).subscribe(recorder.record)
      let raised = [SIGUSR1, SIGUSR2, SIGUSR2, SIGUSR1, SIGUSR2]
      for signal in raised { raiseSynchronously(signal) }
      #expect(await recorder.arrival(ofCount: raised.count))
      subscription.unsubscribe()
      #expect(recorder.values.map(\.rawValue) == raised)
    }
  }

  @Test func aSignalRaisedRightAfterSubscribeReturnsIsDelivered() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      let stream = try Signals.deliveries(of: SIGUSR1)
      for attempt in 0..<50 {
        let recorder = Recorder<UnixSignal>()
        let subscription = stream.subscribe(recorder.record)
        // Half the time on this thread, half to the process (another thread runs the handler).
        if attempt.isMultiple(of: 2) {
          raiseSynchronously(SIGUSR1)
        } else {
          sendToProcess(SIGUSR1)
        }
        #expect(await recorder.arrival(ofCount: 1), "attempt \(attempt)")
        subscription.unsubscribe()
      }
    }
  }

  @Test func aBusyActorReceivesEverySignalLaterInOrder() async throws {
    try await withHarmlessHandlers(SIGUSR1, SIGUSR2) {
      let recorder = Recorder<UnixSignal>()
      let subscription = try Signals.deliveries(of: SIGUSR1, SIGUSR2).subscribe(recorder.record)
      let raised = (0..<40).map { $0 % 3 == 0 ? SIGUSR2 : SIGUSR1 }
      // The main actor is busy running this test: the deliveries wait for it.
      for signal in raised { raiseSynchronously(signal) }
      usleep(20_000)
      #expect(recorder.values.isEmpty)
      #expect(await recorder.arrival(ofCount: raised.count))
      subscription.unsubscribe()
      #expect(recorder.values.map(\.rawValue) == raised)
    }
  }

  @Test(arguments: [false, true])
  func lastUnsubscribeRestoresThePreviousDispositionExactly(previousIgnores: Bool) async throws {
    let signal = SIGUSR1
    let saved = Disposition.install(
      signal, ignore: previousIgnores, flags: SA_RESTART | SA_NODEFER,
      mask: [SIGUSR2, SIGHUP])
    defer { Disposition.restore(signal, saved) }
    let before = Disposition(of: signal)

    let stream = try Signals.deliveries(of: signal)
    #expect(Disposition(of: signal) == before, "making a stream changes nothing")
    let first = Recorder<UnixSignal>()
    let second = Recorder<UnixSignal>()
    let firstSubscription = stream.subscribe(first.record)
    let secondSubscription = stream.subscribe(second.record)
    #expect(Disposition(of: signal) != before)

    firstSubscription.unsubscribe()
    #expect(Disposition(of: signal) != before, "one subscription is left")
    raiseSynchronously(signal)
    #expect(await second.arrival(ofCount: 1))

    secondSubscription.unsubscribe()
    #expect(Disposition(of: signal) == before)
    #expect(first.values.isEmpty)
  }

  @Test func unsubscribeInTheSubscriberStopsDeliveryAtOnce() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      let stream = try Signals.deliveries(of: SIGUSR1)
      let recorder = Recorder<UnixSignal>()
      var subscription: SendableSubscription?
      subscription = stream.subscribe { signal in
        recorder.record(signal)
        subscription?.unsubscribe()
      }
      // Five deliveries wait for the main actor; the first one unsubscribes.
      for _ in 0..<5 { raiseSynchronously(SIGUSR1) }
      #expect(await recorder.arrival(ofCount: 1))
      raiseSynchronously(SIGUSR1)
      try await Task.sleep(for: .milliseconds(50))
      #expect(recorder.values.map(\.rawValue) == [SIGUSR1])
    }
  }

  @Test func signalsHandledOnAnotherThreadAreDeliveredOnTheMainActor() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      var count = 0  // a main-actor variable, mutated with no lock
      let recorder = Recorder<UnixSignal>()
      let subscription = try Signals.deliveries(of: SIGUSR1).subscribe { signal in
        MainActor.assertIsolated()  // the pipe is read on a queue; the subscriber runs here
        count += 1
        recorder.record(signal)
      }
      // One at a time: the system merges a signal sent again while it is still pending.
      for sent in 1...3 {
        sendToProcess(SIGUSR1)
        #expect(await recorder.arrival(ofCount: sent))
      }
      subscription.unsubscribe()
      #expect(count == 3)
    }
  }

  @Test func unsubscribingWhileSignalsArriveStopsDelivery() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      let stream = try Signals.deliveries(of: SIGUSR1)
      let control = Recorder<UnixSignal>()
      let controlSubscription = stream.subscribe(control.record)
      let flood = SignalFlood(SIGUSR1)
      var stopped: [(Recorder<UnixSignal>, Int)] = []
      for _ in 0..<40 {
        let recorder = Recorder<UnixSignal>()
        let subscription = try Signals.deliveries(of: SIGUSR1).subscribe(recorder.record)
        #expect(await recorder.arrival(ofCount: 1))
        subscription.unsubscribe()
        stopped.append((recorder, recorder.values.count))
      }
      let raised = flood.stop()
      // The control subscription receives every raise exactly once; once it has them all, the
      // reader has handed out every signal, so any late delivery would have arrived by now.
      #expect(await control.arrival(ofCount: raised))
      controlSubscription.unsubscribe()
      #expect(control.values.count == raised)
      for (recorder, countAtUnsubscribe) in stopped {
        #expect(recorder.values.count == countAtUnsubscribe)
      }
    }
  }

  /// Eight actors subscribe to and unsubscribe from two signals at once, from one stream each
  /// and from new ones, while a thread raises them: each subscription ends with its handler
  /// installed and restored in balance, and every disposition is as before at the end (checked
  /// by `withHarmlessHandlers` and the suite's trait).
  @Test func actorsSubscribingAndUnsubscribingAtOnceLeaveTheDispositionsAsTheyWere() async throws {
    try await withHarmlessHandlers(SIGUSR1, SIGUSR2) {
      let flood = SignalFlood(SIGUSR2)
      let delivered = Recorder<UnixSignal>()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<8 {
          group.addTask {
            try await SubscribingWorker().churn(
              worker < 4 ? SIGUSR1 : SIGUSR2, rounds: 100, recording: delivered)
          }
        }
        try await group.waitForAll()
      }
      _ = flood.stop()
    }
  }

  @Test func unsubscribeReleasesTheObserver() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      final class Canary {}
      weak var weakCanary: Canary?
      let recorder = Recorder<UnixSignal>()
      let subscription: SendableSubscription = try {
        let canary = Canary()
        weakCanary = canary
        return try Signals.deliveries(of: SIGUSR1).subscribe { signal in
          withExtendedLifetime(canary) { recorder.record(signal) }
        }
      }()
      raiseSynchronously(SIGUSR1)
      #expect(await recorder.arrival(ofCount: 1))
      #expect(weakCanary != nil)
      subscription.unsubscribe()
      // The delivery that recorded may still be returning on its queue, holding the closure.
      #expect(await eventually { weakCanary == nil })
    }
  }

  @Test func aNewSubscriptionDoesNotReceiveSignalsHandledBeforeIt() async throws {
    try await withHarmlessHandlers(SIGUSR1) {
      let stream = try Signals.deliveries(of: SIGUSR1)
      let early = Recorder<UnixSignal>()
      let late = Recorder<UnixSignal>()
      let earlySubscription = stream.subscribe(early.record)
      raiseSynchronously(SIGUSR1)
      let lateSubscription = try Signals.deliveries(of: SIGUSR1).subscribe(late.record)
      raiseSynchronously(SIGUSR1)
      #expect(await early.arrival(ofCount: 2))
      #expect(await late.arrival(ofCount: 1))
      try await Task.sleep(for: .milliseconds(50))
      #expect(late.values.count == 1)
      earlySubscription.unsubscribe()
      lateSubscription.unsubscribe()
    }
  }
}

/// Tests that bring a default action back, or change the dispositions of many signals: each
/// runs in a child process of its own (a Swift Testing exit test), so the runner cannot die.
@MainActor @Suite(.checksLiveResources) struct SignalsInChildProcessTests {
  @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
  func theDefaultActionIsBackAfterTheLastUnsubscribe(number: Int32) async {
    let result = await #expect(
      processExitsWith: .signal(number), observing: [\.standardOutputContent]
    ) { [number] in
      try await defaultActionChild(number)
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output.contains("\(UnixSignal(rawValue: number)) delivered while subscribed"))
    #expect(!output.contains("still alive"))
  }

  @Test func anIgnoredSignalIsIgnoredAgainAfterTheLastUnsubscribe() async {
    await #expect(processExitsWith: .success) {
      try await ignoredAgainChild()
    }
  }

  @Test func everyDispositionIsAsBeforeAfterTheLastUnsubscribe() async {
    let result = await #expect(
      processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
    ) {
      try await everyDispositionChild()
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("dispositions as before"), "\(output)\(errors)")
  }

  #if os(Linux)
    @Test func theSignalPipeIsMadeOnceAndNoDescriptorLeaks() async {
      let result = await #expect(
        processExitsWith: .success, observing: [\.standardOutputContent]
      ) {
        try await signalPipeChild()
      }
      let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
      #expect(output.contains("signal pipe: 2 descriptors"), "\(output)")
      #expect(output.contains("sockets leaked: 0"), "\(output)")
      #expect(output.contains("descriptors leaked: false"), "\(output)")
    }
  #endif
}

/// The child process of `defaultActionChild`, on the main actor (where the streams deliver).
@MainActor private func defaultActionChild(_ number: Int32) async throws {
  let signal = UnixSignal(rawValue: number)
  Disposition.restoreDefault(number)
  let stream = try Signals.deliveries(of: number)
  let first = Recorder<UnixSignal>()
  let second = Recorder<UnixSignal>()
  let firstSubscription = stream.subscribe(first.record)
  let secondSubscription = stream.subscribe(second.record)
  raiseSynchronously(number)
  guard await first.arrival(ofCount: 1), await second.arrival(ofCount: 1) else { exit(2) }
  firstSubscription.unsubscribe()
  raiseSynchronously(number)
  guard await second.arrival(ofCount: 2) else { exit(3) }
  print("\(signal) delivered while subscribed")
  fflush(nil)
  secondSubscription.unsubscribe()
  raiseSynchronously(number)
  print("still alive after the last unsubscribe")
}

/// The child process of `ignoredAgainChild`, on the main actor (where the streams deliver).
@MainActor private func ignoredAgainChild() async throws {
  Disposition.install(SIGTERM, ignore: true)
  let recorder = Recorder<UnixSignal>()
  let subscription = try Signals.deliveries(of: SIGTERM).subscribe(recorder.record)
  raiseSynchronously(SIGTERM)
  guard await recorder.arrival(ofCount: 1) else { exit(2) }
  subscription.unsubscribe()
  raiseSynchronously(SIGTERM)  // ignored again: the process lives on
}

/// The child process of `everyDispositionChild`, on the main actor (where the streams deliver).
@MainActor private func everyDispositionChild() async throws {
  let catchable = (Int32(1)...64).filter { signal in
    (try? Signals.deliveries(of: signal)) != nil
  }
  let before = catchable.map { Disposition(of: $0) }
  let streams = [
    try Signals.deliveries(of: catchable),
    try Signals.deliveries(of: SIGUSR1, SIGWINCH, SIGHUP),
    try Signals.deliveries(of: SIGCHLD),
  ]
  let recorder = Recorder<UnixSignal>()
  let subscriptions = streams.flatMap { stream in
    [stream.subscribe(recorder.record), stream.subscribe(recorder.record)]
  }
  raiseSynchronously(SIGUSR1)
  raiseSynchronously(SIGWINCH)
  guard await recorder.arrival(ofCount: 8) else { exit(2) }
  for subscription in subscriptions { subscription.unsubscribe() }
  let after = catchable.map { Disposition(of: $0) }
  for (signal, (old, new)) in zip(catchable, zip(before, after)) where old != new {
    print("\(UnixSignal(rawValue: signal)) was \(old), is \(new)")
  }
  print(after == before ? "\(catchable.count) dispositions as before" : "changed")
  fflush(nil)
}

#if os(Linux)
  /// The child process of `signalPipeChild`, on the main actor (where the streams deliver).
  @MainActor private func signalPipeChild() async throws {
    func subscribeRaiseAndUnsubscribe() async throws {
      let recorder = Recorder<UnixSignal>()
      let subscription = try Signals.deliveries(of: SIGUSR1, SIGUSR2)
        .subscribe(recorder.record)
      raiseSynchronously(SIGUSR2)
      guard await recorder.arrival(ofCount: 1) else { exit(2) }
      subscription.unsubscribe()
    }
    let socketsBefore = openDescriptorCount(linkedTo: "socket:")
    try await subscribeRaiseAndUnsubscribe()
    let socketsAfterFirst = openDescriptorCount(linkedTo: "socket:")
    let descriptorsAfterFirst = openDescriptorCount()
    for _ in 0..<200 { try await subscribeRaiseAndUnsubscribe() }
    let socketsAfterAll = openDescriptorCount(linkedTo: "socket:")
    let descriptorsAfterAll = openDescriptorCount()
    print("signal pipe: \(socketsAfterFirst - socketsBefore) descriptors")
    print("sockets leaked: \(socketsAfterAll - socketsAfterFirst)")
    // The test harness of the child may open or close a descriptor of its own meanwhile; a
    // leak in each of the 200 cycles would add 200 or more.
    print("descriptors leaked: \(descriptorsAfterAll - descriptorsAfterFirst >= 100)")
  }
#endif

/// Subscribes and unsubscribes on an actor of its own.
private actor SubscribingWorker {
  func churn(_ signal: Int32, rounds: Int, recording delivered: Recorder<UnixSignal>) throws {
    let shared = try Signals.deliveries(of: SIGUSR1, SIGUSR2)
    for round in 0..<rounds {
      let stream = round.isMultiple(of: 2) ? shared : try Signals.deliveries(of: signal)
      let subscription = stream.subscribe(delivered.record)
      if round.isMultiple(of: 25) { sendToProcess(SIGUSR1) }
      subscription.unsubscribe()
    }
  }
}

/// An actor that subscribes to a signal, on an executor that counts the jobs it runs.
private actor JobCountingActor {
  nonisolated let executor = JobCountingExecutor()
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
  private var subscription: SendableSubscription?

  func subscribe(to signal: Int32, recording recorder: Recorder<UnixSignal>) throws {
    subscription = try Signals.deliveries(of: signal).subscribe(recorder.record)
  }

  func unsubscribe() {
    subscription.take()?.unsubscribe()
  }
}

/// A serial executor that counts the jobs enqueued on it.
private final class JobCountingExecutor: SerialExecutor, Sendable {
  private let queue = DispatchQueue(label: "JobCountingExecutor")
  private let count = LockedState(0)

  /// How many jobs were enqueued so far.
  var jobs: Int { count.withLock { $0 } }

  func enqueue(_ job: consuming ExecutorJob) {
    count.withLock { $0 += 1 }
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// A thread that raises a signal at itself, over and over, until stopped.
private final class SignalFlood: @unchecked Sendable {
  // `running` and `raised` are guarded by `lock`; `finished` is thread-safe by itself.
  private let lock = NSLock()
  private var running = true
  private var raised = 0
  private let finished = DispatchSemaphore(value: 0)

  init(_ signal: Int32) {
    Thread.detachNewThread { [self] in
      while lock.withLock({ running }) {
        raiseSynchronously(signal)
        lock.withLock { raised += 1 }
        usleep(200)
      }
      finished.signal()
    }
  }

  /// Stops raising; how many signals were raised.
  func stop() -> Int {
    lock.withLock { running = false }
    finished.wait()
    return lock.withLock { raised }
  }
}

/// Bad input: every refused signal gets its typed error when the stream is made.
@MainActor @Suite(.checksLiveResources) struct SignalErrorTests {
  nonisolated static let refused: [(Int32, SignalError)] = [
    (0, .outOfRange(0)),
    (-1, .outOfRange(-1)),
    (65, .outOfRange(65)),
    (SIGKILL, .notCatchable(UnixSignal(rawValue: SIGKILL))),
    (SIGSTOP, .notCatchable(UnixSignal(rawValue: SIGSTOP))),
    (SIGSEGV, .fault(UnixSignal(rawValue: SIGSEGV))),
    (SIGBUS, .fault(UnixSignal(rawValue: SIGBUS))),
    (SIGFPE, .fault(UnixSignal(rawValue: SIGFPE))),
    (SIGILL, .fault(UnixSignal(rawValue: SIGILL))),
  ]

  @Test(arguments: refused)
  func refusedSignalThrowsItsError(number: Int32, error: SignalError) {
    #expect(throws: error) { try Signals.deliveries(of: number) }
    #expect(throws: error) { try Signals.deliveries(of: [SIGUSR1, number]) }
  }

  #if canImport(Glibc)
    @Test func signalsReservedByTheCLibraryAreRefused() async throws {
      #expect(throws: SignalError.reserved(UnixSignal(rawValue: 32))) {
        try Signals.deliveries(of: 32)
      }
    }
  #endif

  @Test func anEmptyListIsRefused() async throws {
    #expect(throws: SignalError.noSignals) { try Signals.deliveries(of: []) }
  }

  @Test func errorsSayWhatWasWrong() async throws {
    #expect(
      SignalError.outOfRange(0).description
        == "signal number 0 is out of range: signals are 1...\(highestSignalNumber)")
    #expect(
      SignalError.notCatchable(UnixSignal(rawValue: SIGKILL)).description
        == "SIGKILL cannot be caught")
    #expect(SignalError.noSignals.description.contains("at least one"))
  }

  @Test func signalsAreNamedAfterTheirCNames() async throws {
    #expect(UnixSignal(rawValue: SIGINT).description == "SIGINT")
    #expect(UnixSignal(rawValue: SIGWINCH).description == "SIGWINCH")
    #expect(UnixSignal(rawValue: 40).description == "signal 40")
    #expect(UnixSignal(rawValue: SIGUSR1).description == "SIGUSR1")
  }
}

#if canImport(Glibc)
  private let highestSignalNumber = 64
#else
  private let highestSignalNumber = 31
#endif
