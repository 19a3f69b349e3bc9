import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A descriptor stream that always has more to read shares its actor: a timer delivering on the
/// same actor (the main actor) ticks within 100 ms while the stream is flooded (issue 16,
/// point 4; since issue 17 the reader reads its next chunk only once the actor has the last). Serialized, so that two
/// floods do not share the machine's two cores and blur each other's measurement.
@MainActor @Suite(.serialized, .checksLiveResources) struct FileDescriptorsFairnessTests {
  /// The longest a tick may come after it was due while a stream on its queue is flooded.
  /// Under a sanitizer, whose runtime makes each delivery several times slower, the tests check
  /// only that the timer is not starved: before the fix it waited for the whole second of
  /// flood.
  static let promise = TestProcess.isSanitized ? 0.5 : 0.1
  /// How long each test floods its stream and watches the timer.
  static let window = 1.0

  @Test func aFloodedPipeLeavesATimerOnTheSameActorItsTurn() async throws {
    let pipe = Pipe()
    let lines = Counter()
    let flood = Flood(writingTo: pipe.write)
    let reading = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { _ in lines.add(1) })
    #expect(await eventually { lines.value > 0 })
    let before = lines.value
    let wait = try await longestWaitForATick(for: Self.window)
    let during = lines.value - before
    await flood.stop()
    close(pipe.write)
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    #expect(during > 0, "the flood was read during the measurement")
  }

  @Test func aFloodedPipeOfBytesLeavesATimerOnTheSameActorItsTurn() async throws {
    let pipe = Pipe()
    let flood = Flood(writingTo: pipe.write)
    // A subscriber slower than the writer, as one that parses what it reads is: the pipe never
    // runs dry, so the reader always has more to read.
    let chunks = Counter()
    let reading = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { _ in
        chunks.add(1)
        usleep(1_000)
      })
    #expect(await eventually { chunks.value > 0 })
    let before = chunks.value
    let wait = try await longestWaitForATick(for: Self.window)
    let during = chunks.value - before
    await flood.stop()
    close(pipe.write)
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    // At 1 ms a chunk, a reader that always had more delivered hundreds in the second.
    #expect(during > 100, "\(during) chunks during the measurement")
  }

  @Test func aLongRegularFileLeavesATimerOnTheSameActorItsTurn() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("long")
    // 32 MiB of short lines: more than a reader gets through in the measurement.
    let block = Array(String(repeating: "y\n", count: 1 << 15).utf8)
    let writer = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    for _ in 0..<512 { _ = block.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } }
    close(writer)
    let lines = Counter()
    let statuses = Recorder<DescriptorStatus>()
    let fd = open(path, O_RDONLY)
    let reading = try FileDescriptors.lines(of: fd, ownership: .streamCloses)
      .subscribe(next: { _ in lines.add(1) }, status: statuses.record)
    #expect(await eventually { lines.value > 0 })
    let wait = try await longestWaitForATick(for: Self.window)
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    #expect(statuses.values.isEmpty, "the file was read to its end during the measurement")
  }

  @Test func anEndlessDeviceKeepsDeliveringAndLeavesATimerOnTheSameActorItsTurn() async throws {
    let bytes = Counter()
    let zero = open("/dev/zero", O_RDONLY)
    let reading = try FileDescriptors.bytes(of: zero, ownership: .streamCloses)
      .subscribe(next: { bytes.add($0.count) })
    #expect(await eventually { bytes.value > 0 })
    let before = bytes.value
    let wait = try await longestWaitForATick(for: Self.window)
    let during = bytes.value - before
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    #expect(during > 1 << 20, "\(during) bytes during the measurement")
  }

  /// Ticks a 10 ms timer on the main actor, beside the stream, for `seconds`; the longest a tick came after it was due, in
  /// seconds: the longest time from the start to the first tick, between two ticks, or from the
  /// last tick to the end, less the 10 ms interval.
  func longestWaitForATick(for seconds: Double) async throws -> Double {
    let ticks = Recorder<UInt64>()
    let start = DispatchTime.now().uptimeNanoseconds
    let ticking = try Timers.every(.milliseconds(10))
      .subscribe { _ in ticks.record(DispatchTime.now().uptimeNanoseconds) }
    try await Task.sleep(for: .seconds(seconds))
    let end = DispatchTime.now().uptimeNanoseconds
    ticking.unsubscribe()
    let times = [start] + ticks.values.filter { $0 <= end } + [end]
    let longestGap = zip(times, times.dropFirst()).map { Double($1 - $0) / 1e9 }.max() ?? 0
    return longestGap - 0.01
  }
}

/// A count that a subscriber adds to and the test reads.
final class Counter: Sendable {
  private let count = LockedState(0)
  func add(_ amount: Int) { count.withLock { $0 += amount } }
  var value: Int { count.withLock { $0 } }
}

/// A thread that writes "y\n" to a pipe as fast as it can, like `yes`, until ``stop()``.
final class Flood: Sendable {
  private let stopped = Atomic(false)
  private let finished = Atomic(false)

  init(writingTo fd: Int32) {
    Thread.detachNewThread { [self] in
      let block = Array(String(repeating: "y\n", count: 1 << 15).utf8)
      while !stopped.load(ordering: .relaxed) {
        _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      }
      finished.store(true, ordering: .releasing)
    }
  }

  /// Stops the writer and waits for its last write, which the reader must still drain: without
  /// blocking the thread, since the reader reads on only once the test's actor has its chunks.
  func stop() async {
    stopped.store(true, ordering: .relaxed)
    while !finished.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
  }
}
