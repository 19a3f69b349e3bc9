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

/// A descriptor stream that always has more to read shares its queue: a timer on the same queue
/// ticks within 100 ms while the stream is flooded (issue 16, point 4). Serialized, so that two
/// floods do not share the machine's two cores and blur each other's measurement.
@Suite(.serialized, .checksLiveResources) struct FileDescriptorsFairnessTests {
  /// The longest a tick may come after it was due while a stream on its queue is flooded.
  /// Under a sanitizer, whose runtime makes each delivery several times slower, the tests check
  /// only that the timer is not starved: before the fix it waited for the whole second of
  /// flood.
  static let promise = TestProcess.isSanitized ? 0.5 : 0.1
  /// How long each test floods its stream and watches the timer.
  static let window = 1.0

  @Test func aFloodedPipeLeavesATimerOnTheSameQueueItsTurn() throws {
    let pipe = Pipe()
    let queue = DispatchQueue(label: "shared")
    let lines = Counter()
    let flood = Flood(writingTo: pipe.write)
    let reading = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses, on: queue)
      .subscribe(next: { _ in lines.add(1) })
    #expect(eventually { lines.value > 0 })
    let before = lines.value
    let wait = try longestWaitForATick(on: queue, for: Self.window)
    let during = lines.value - before
    flood.stop()
    close(pipe.write)
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    #expect(during > 0, "the flood was read during the measurement")
  }

  @Test func aFloodedPipeOfBytesLeavesATimerOnTheSameQueueItsTurn() throws {
    let pipe = Pipe()
    let queue = DispatchQueue(label: "shared")
    let flood = Flood(writingTo: pipe.write)
    // A subscriber slower than the writer, as one that parses what it reads is: the pipe never
    // runs dry, so the reader always has more to read.
    let chunks = Counter()
    let reading = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses, on: queue)
      .subscribe(next: { _ in
        chunks.add(1)
        usleep(1_000)
      })
    #expect(eventually { chunks.value > 0 })
    let before = chunks.value
    let wait = try longestWaitForATick(on: queue, for: Self.window)
    let during = chunks.value - before
    flood.stop()
    close(pipe.write)
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    // At 1 ms a chunk, a reader that always had more delivered hundreds in the second.
    #expect(during > 100, "\(during) chunks during the measurement")
  }

  @Test func aLongRegularFileLeavesATimerOnTheSameQueueItsTurn() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("long")
    // 32 MiB of short lines: more than a reader gets through in the measurement.
    let block = Array(String(repeating: "y\n", count: 1 << 15).utf8)
    let writer = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    for _ in 0..<512 { _ = block.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } }
    close(writer)
    let queue = DispatchQueue(label: "shared")
    let lines = Counter()
    let statuses = Recorder<DescriptorStatus>()
    let fd = open(path, O_RDONLY)
    let reading = try FileDescriptors.lines(of: fd, ownership: .streamCloses, on: queue)
      .subscribe(next: { _ in lines.add(1) }, status: statuses.record)
    #expect(eventually { lines.value > 0 })
    let wait = try longestWaitForATick(on: queue, for: Self.window)
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    #expect(statuses.values.isEmpty, "the file was read to its end during the measurement")
  }

  @Test func anEndlessDeviceKeepsDeliveringAndLeavesATimerOnTheSameQueueItsTurn() throws {
    let queue = DispatchQueue(label: "shared")
    let bytes = Counter()
    let zero = open("/dev/zero", O_RDONLY)
    let reading = try FileDescriptors.bytes(of: zero, ownership: .streamCloses, on: queue)
      .subscribe(next: { bytes.add($0.count) })
    #expect(eventually { bytes.value > 0 })
    let before = bytes.value
    let wait = try longestWaitForATick(on: queue, for: Self.window)
    let during = bytes.value - before
    reading.unsubscribe()
    #expect(wait < Self.promise, "a tick waited \(wait) s")
    #expect(during > 1 << 20, "\(during) bytes during the measurement")
  }

  /// Ticks a 10 ms timer on `queue` for `seconds`; the longest a tick came after it was due, in
  /// seconds: the longest time from the start to the first tick, between two ticks, or from the
  /// last tick to the end, less the 10 ms interval.
  func longestWaitForATick(on queue: DispatchQueue, for seconds: Double) throws -> Double {
    let ticks = Recorder<UInt64>()
    let start = DispatchTime.now().uptimeNanoseconds
    let ticking = try Timers.every(.milliseconds(10), on: queue)
      .subscribe { _ in ticks.record(DispatchTime.now().uptimeNanoseconds) }
    Thread.sleep(forTimeInterval: seconds)
    let end = DispatchTime.now().uptimeNanoseconds
    ticking.unsubscribe()
    let times = [start] + ticks.values.filter { $0 <= end } + [end]
    let longestGap = zip(times, times.dropFirst()).map { Double($1 - $0) / 1e9 }.max() ?? 0
    return longestGap - 0.01
  }
}

/// A count that the delivery queue adds to and the test reads.
final class Counter: Sendable {
  private let count = LockedState(0)
  func add(_ amount: Int) { count.withLock { $0 += amount } }
  var value: Int { count.withLock { $0 } }
}

/// A thread that writes "y\n" to a pipe as fast as it can, like `yes`, until ``stop()``.
final class Flood: Sendable {
  private let stopped = Atomic(false)
  private let finished = DispatchSemaphore(value: 0)

  init(writingTo fd: Int32) {
    Thread.detachNewThread { [self] in
      let block = Array(String(repeating: "y\n", count: 1 << 15).utf8)
      while !stopped.load(ordering: .relaxed) {
        _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      }
      finished.signal()
    }
  }

  /// Stops the writer and waits for its last write, which the reader must still drain.
  func stop() {
    stopped.store(true, ordering: .relaxed)
    finished.wait()
  }
}
