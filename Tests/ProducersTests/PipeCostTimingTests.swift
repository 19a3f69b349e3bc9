import Foundation
import IndefiniteObservable
import Producers
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A byte that reaches a descriptor stream's subscriber costs the same with a thousand other
/// descriptor streams waiting as with none: the poller's thread waits for the descriptors that
/// have something, not for each of them in turn.
///
/// Two measurements of one run, not a deadline: the process's CPU time for 300 bytes sent one
/// after the other through a pipe (each once the one before has arrived), with no other stream,
/// then with 1,000 streams on idle pipes; each the least of three tries. Before the change (a
/// `poll` of every waiting descriptor at each wake-up, and the list of them made again after each
/// wait), a byte cost 9 times as much with 1,000 idle streams as with none, in a release build
/// (17 and 154 µs).
///
/// A time, which a parallel run shares with every other test: so it runs only when
/// `TIMING_TESTS=1` is set, which `.ci/run` does in a step of its own (see
/// `FloodLatencyTimingTests`).
@MainActor
@Suite(
  .checksLiveResources,
  .enabled(
    if: ProcessInfo.processInfo.environment["TIMING_TESTS"] == "1",
    "compares times: run alone, with TIMING_TESTS=1"))
struct PipeCostTimingTests {
  static let bytes = 300
  static let idle = 1_000
  static let tries = 3

  @Test func aByteCostsTheSameWithAThousandIdleStreams() async throws {
    try Self.allowDescriptors(4 * Self.idle)
    var alone = Double.infinity
    for _ in 0..<Self.tries { alone = min(alone, try await Self.cpuPerByte()) }

    var idle: [(SendableSubscription, Int32)] = []
    for _ in 0..<Self.idle {
      let pipe = Pipe()
      let stream = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses)
      idle.append((stream.subscribe(next: { _ in }), pipe.write))
    }
    var crowded = Double.infinity
    for _ in 0..<Self.tries { crowded = min(crowded, try await Self.cpuPerByte()) }
    for (subscription, write) in idle {
      subscription.unsubscribe()
      close(write)
    }

    let ratio = crowded / alone
    print(
      "a byte: \(Int(alone * 1e6)) µs of CPU alone, \(Int(crowded * 1e6)) µs beside "
        + "\(Self.idle) idle streams (\(String(format: "%.2f", ratio))x)")
    #expect(ratio < 2)
  }

  /// The process's CPU seconds per byte sent through a new pipe stream, one byte at a time.
  static func cpuPerByte() async throws -> Double {
    let pipe = Pipe()
    let stream = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses)
    var received = 0
    var start = 0.0
    var subscription: SendableSubscription?
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      subscription = stream.subscribe(next: { chunk in
        received += chunk.count
        if received == 10 { start = cpuSeconds() }  // the first few warm the path
        guard received < 10 + bytes else { return done.resume() }
        pipe.send("b")
      })
      pipe.send("b")
    }
    let spent = cpuSeconds() - start
    subscription?.unsubscribe()
    close(pipe.write)
    return spent / Double(bytes)
  }

  /// The process's CPU time, user and system, every thread.
  static func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Raises the soft limit of open descriptors to at least `count` (within the hard limit).
  static func allowDescriptors(_ count: Int) throws {
    #if canImport(Glibc)
      let resource = Int32(RLIMIT_NOFILE.rawValue)
    #else
      let resource = RLIMIT_NOFILE
    #endif
    var limit = rlimit()
    getrlimit(resource, &limit)
    guard limit.rlim_cur < rlim_t(count) else { return }
    try #require(limit.rlim_max >= rlim_t(count), "the hard limit of descriptors is too low")
    limit.rlim_cur = rlim_t(count)
    setrlimit(resource, &limit)
  }
}
