import Foundation
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A handler that does nothing: tests install it before subscribing, so that a signal arriving
/// after the last unsubscribe is harmless to the test runner.
func harmlessHandler(_: Int32) {}

/// Raises `signal` on the calling thread with the signal unblocked there, so that its handler
/// has run when this returns. (Dispatch's threads, which run the tests, block signals: a plain
/// `raise` there would leave the signal pending forever.)
func raiseSynchronously(_ signal: Int32) {
  var unblock = sigset_t()
  var previous = sigset_t()
  sigemptyset(&unblock)
  sigaddset(&unblock, signal)
  pthread_sigmask(SIG_UNBLOCK, &unblock, &previous)
  raise(signal)
  pthread_sigmask(SIG_SETMASK, &previous, nil)
}

/// Sends `signal` to the process; some thread that does not block it runs the handler, later.
func sendToProcess(_ signal: Int32) {
  kill(getpid(), signal)
}

/// Lets those of `signals` that are pending for the process be handled now, on this thread, by
/// the handlers installed now.
///
/// A signal sent with ``sendToProcess(_:)`` waits, pending, for a thread that does not block it
/// (Dispatch's threads block signals), which on a loaded machine can come after the test that
/// sent it has put the default action back: SIGUSR1's default action ended the test process
/// (seen once in 10 parallel runs beside a release build, and 3 times in about 30 runs of
/// `ProducersTests` under load). Unblocking a pending signal delivers it to the thread that
/// unblocks it, before `pthread_sigmask` returns.
func handlePending(_ signals: [Int32]) {
  var pending = sigset_t()
  sigpending(&pending)
  var unblock = sigset_t()
  sigemptyset(&unblock)
  let waiting = signals.filter { sigismember(&pending, $0) == 1 }
  guard !waiting.isEmpty else { return }
  for signal in waiting { sigaddset(&unblock, signal) }
  var previous = sigset_t()
  pthread_sigmask(SIG_UNBLOCK, &unblock, &previous)
  pthread_sigmask(SIG_SETMASK, &previous, nil)
}

/// A signal's disposition, as `sigaction` reports it: handler, flags and blocked signals.
///
/// Two details that change no behaviour are left out, so that "the same disposition" means the
/// same behaviour: glibc's `sigaction` adds `SA_RESTORER` to every action it installs (a
/// disposition never set since the process started reads flags 0, and the flag once anybody put
/// it back); and the mask of SIG_DFL or SIG_IGN, which applies to no handler (ThreadSanitizer's
/// `sigaction` fills it when it installs SIG_DFL).
struct Disposition: Equatable, CustomStringConvertible {
  var handler: UInt
  var flags: Int32
  var mask: [Int32]

  /// The current disposition of `signal`.
  init(of signal: Int32) {
    var action = sigaction()
    precondition(sigaction(signal, nil, &action) == 0, "sigaction(\(signal)) failed")
    handler = action.handlerBits
    flags = action.sa_flags & ~restorerFlag
    let runsHandler = handler > 1
    mask = runsHandler ? (1...64).filter { sigismember(&action.sa_mask, $0) == 1 } : []
  }

  /// Installs a disposition: the harmless handler (SIG_IGN when `ignore`), with `flags` and
  /// `mask`. Returns what it replaced, for `restore`.
  @discardableResult
  static func install(
    _ signal: Int32, ignore: Bool = false, flags: Int32 = SA_RESTART, mask: [Int32] = []
  ) -> sigaction {
    var action = sigaction()
    action.setHandler(ignoring: ignore)
    action.sa_flags = flags
    sigemptyset(&action.sa_mask)
    for blocked in mask { sigaddset(&action.sa_mask, blocked) }
    var previous = sigaction()
    precondition(sigaction(signal, &action, &previous) == 0, "sigaction(\(signal)) failed")
    return previous
  }

  /// Sets the default action (SIG_DFL).
  static func restoreDefault(_ signal: Int32) {
    var action = sigaction()
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, nil)
  }

  /// Puts back what `install` returned.
  static func restore(_ signal: Int32, _ previous: sigaction) {
    var previous = previous
    sigaction(signal, &previous, nil)
  }

  var description: String {
    let name =
      switch handler {
      case 0: "SIG_DFL"
      case 1: "SIG_IGN"
      default: "handler 0x" + String(handler, radix: 16)
      }
    return "\(name), flags 0x\(String(UInt32(bitPattern: flags), radix: 16)), mask \(mask)"
  }
}

/// Installs the harmless handler for `signals`, runs `body`, checks that every disposition is
/// exactly the harmless handler again (the streams restored what they replaced), then puts the
/// runner's own dispositions back.
func withHarmlessHandlers<R>(
  _ signals: Int32..., body: () throws -> R
) rethrows -> R {
  let saved = signals.map { Disposition.install($0) }
  let installed = signals.map { Disposition(of: $0) }
  defer {
    handlePending(signals)  // a signal sent earlier must not meet the default action
    for (signal, expected) in zip(signals, installed) {
      #expect(
        Disposition(of: signal) == expected, "\(UnixSignal(rawValue: signal)) was not restored")
    }
    for (signal, previous) in zip(signals, saved) { Disposition.restore(signal, previous) }
  }
  return try body()
}

#if canImport(Glibc)
  /// `SA_RESTORER`, which Swift's Glibc module does not export.
  private let restorerFlag: Int32 = 0x0400_0000
#else
  private let restorerFlag: Int32 = 0
#endif

extension sigaction {
  /// The handler (or `sa_sigaction`) as a number: 0 is SIG_DFL, 1 is SIG_IGN.
  fileprivate var handlerBits: UInt {
    #if canImport(Glibc)
      unsafeBitCast(__sigaction_handler.sa_handler, to: UInt.self)
    #else
      unsafeBitCast(__sigaction_u.__sa_handler, to: UInt.self)
    #endif
  }

  /// Sets SIG_IGN, or the harmless handler.
  fileprivate mutating func setHandler(ignoring: Bool) {
    let value = ignoring ? SIG_IGN : harmlessHandler
    #if canImport(Glibc)
      __sigaction_handler.sa_handler = value
    #else
      __sigaction_u.__sa_handler = value
    #endif
  }
}

/// The descriptors of this process whose link names start with `prefix` (`socket:`, `pipe:`),
/// from /proc/self/fd; -1 where that cannot be read.
func openDescriptorCount(linkedTo prefix: String) -> Int {
  guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
    return -1
  }
  return entries.count { entry in
    let target = try? FileManager.default.destinationOfSymbolicLink(
      atPath: "/proc/self/fd/" + entry)
    return target?.hasPrefix(prefix) == true
  }
}

/// A trait that checks, after each test, that the disposition of every signal of the test
/// runner (1 through 64, not only the ones the test used) is what it was before the test.
///
/// For the suites that subscribe to signals in the runner itself: a stream that installed a
/// handler for a wrong number, or restored the wrong action, shows up here.
struct DispositionsCheck: TestTrait, SuiteTrait, TestScoping {
  var isRecursive: Bool { true }

  func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    // SIGPIPE is the one disposition that other suites change while this one runs: settle it
    // first, as they do, so that only what the test itself changes shows.
    TestProcess.ignoreBrokenPipes()
    let before = Self.dispositions()
    try await function()
    let changed = zip(before, Self.dispositions()).filter { $0.0.disposition != $0.1.disposition }
    for (old, new) in changed {
      Issue.record(
        "signal \(old.signal) was \(old.disposition), is \(new.disposition) after the test",
        sourceLocation: test.sourceLocation)
    }
  }

  /// The disposition of every signal that `sigaction` reports.
  static func dispositions() -> [(signal: Int32, disposition: Disposition)] {
    (Int32(1)...64).compactMap { signal in
      var action = sigaction()
      guard sigaction(signal, nil, &action) == 0 else { return nil }
      return (signal, Disposition(of: signal))
    }
  }
}

extension Trait where Self == DispositionsCheck {
  /// Checks that each test leaves every signal disposition of the runner as it found it.
  static var leavesEveryDispositionAsItWas: Self { Self() }
}

/// ``withHarmlessHandlers(_:body:)`` for a body that waits for deliveries, on the caller's actor.
func withHarmlessHandlers<R>(
  _ signals: Int32...,
  isolation: isolated (any Actor)? = #isolation,
  body: () async throws -> R
) async rethrows -> R {
  let saved = signals.map { Disposition.install($0) }
  let installed = signals.map { Disposition(of: $0) }
  defer {
    handlePending(signals)  // a signal sent earlier must not meet the default action
    for (signal, expected) in zip(signals, installed) {
      #expect(
        Disposition(of: signal) == expected, "\(UnixSignal(rawValue: signal)) was not restored")
    }
    for (signal, previous) in zip(signals, saved) { Disposition.restore(signal, previous) }
  }
  return try await body()
}
