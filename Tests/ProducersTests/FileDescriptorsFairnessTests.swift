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
/// same actor (the main actor) keeps ticking between the stream's chunks while it is flooded
/// (issue 16, point 4; since issue 17 the reader reads its next chunk only once the actor has the
/// last). Checked by what happened, not by how late a tick came: each tick records how many
/// chunks had been delivered before it, and the test waits (for as long as a loaded machine under
/// ThreadSanitizer needs, far more than a fair reader takes) until ticks have come between chunks
/// of the flood. A reader that starves the actor delivers no tick while the flood lasts; one that
/// reads ahead of its subscriber fills the gate's queue, whose drain then never yields the actor
/// either. Serialized, so that two floods do not share the machine's two cores.
@MainActor @Suite(.serialized, .checksLiveResources) struct FileDescriptorsFairnessTests {
  /// How many ticks must each come between two chunks of the flood.
  static let ticksNeeded = 5
  /// How long the test waits for them before it fails: a bound for a starved timer, which a fair
  /// reader meets in about `ticksNeeded` ticks of 10 ms even on a loaded machine.
  static let limit: Duration = .seconds(60)

  @Test func aFloodedPipeLeavesATimerOnTheSameActorItsTurn() async throws {
    let pipe = Pipe()
    let lines = Counter()
    let flood = Flood(writingTo: pipe.write)
    let reading = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { _ in lines.add(1) })
    #expect(await eventually { lines.value > 0 })
    // The writer stops; its last write is read before the reader goes.
    let ticks = try await ticksBetweenChunks(counted: lines) { flood.stopWriting() }
    await flood.stop()
    close(pipe.write)
    reading.unsubscribe()
    #expect(ticks >= Self.ticksNeeded, "\(ticks) ticks came between two chunks of the flood")
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
    // The writer stops; its last write is read before the reader goes.
    let ticks = try await ticksBetweenChunks(counted: chunks) { flood.stopWriting() }
    await flood.stop()
    close(pipe.write)
    reading.unsubscribe()
    #expect(ticks >= Self.ticksNeeded, "\(ticks) ticks came between two chunks of the flood")
  }

  @Test func aLongRegularFileLeavesATimerOnTheSameActorItsTurn() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("long")
    // 32 MiB of short lines: more than a reader gets through while the timer ticks 5 times.
    let block = Array(String(repeating: "y\n", count: 1 << 15).utf8)
    let writer = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    for _ in 0..<512 { _ = block.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } }
    close(writer)
    let lines = Counter()
    let statuses = Recorder<DescriptorStatus>()
    let fd = open(path, O_RDONLY)
    // Ended off the main actor (see `ticksBetweenChunks`): a `SendableSubscription`.
    let reading = try FileDescriptors.lines(of: fd, ownership: .streamCloses)
      .subscribe(next: { _ in lines.add(1) }, status: statuses.record)
    #expect(await eventually { lines.value > 0 })
    let ticks = try await ticksBetweenChunks(counted: lines) { reading.unsubscribe() }
    #expect(ticks >= Self.ticksNeeded, "\(ticks) ticks came between two chunks of the file")
    #expect(statuses.values.isEmpty, "the file was read to its end before the ticks came")
  }

  @Test func anEndlessDeviceKeepsDeliveringAndLeavesATimerOnTheSameActorItsTurn() async throws {
    let bytes = Counter()
    let zero = open("/dev/zero", O_RDONLY)
    // Ended off the main actor (see `ticksBetweenChunks`): a `SendableSubscription`.
    let reading = try FileDescriptors.bytes(of: zero, ownership: .streamCloses)
      .subscribe(next: { bytes.add($0.count) })
    #expect(await eventually { bytes.value > 0 })
    let ticks = try await ticksBetweenChunks(counted: bytes) { reading.unsubscribe() }
    #expect(ticks >= Self.ticksNeeded, "\(ticks) ticks came between two chunks of /dev/zero")
  }

  /// Ticks a 10 ms timer on the main actor, beside the stream whose deliveries `delivered`
  /// counts, until ``ticksNeeded`` ticks have each come between two of them, or ``limit`` has
  /// passed; then calls `stop`, which must end the flood (from any thread); returns how many ticks
  /// came between two deliveries.
  ///
  /// Each tick records the count of deliveries so far; both run on the main actor, so the count
  /// says exactly what came before the tick. A tick came between two deliveries when the count
  /// it saw is above the one at the start and below the one now, and differs from the previous
  /// tick's (a delivery came between the two ticks). The wait runs off the main actor, and ends
  /// the stream itself, so that a starved main actor fails the test instead of hanging it.
  func ticksBetweenChunks(
    counted delivered: Counter, stop: @escaping @Sendable () -> Void
  ) async throws -> Int {
    let seen = Recorder<Int>()
    let start = delivered.value
    let ticking = Timers.every(.milliseconds(10))
      .subscribe { _ in seen.record(delivered.value) }
    let needed = Self.ticksNeeded
    let limit = Self.limit
    let ticks = await Task.detached {
      let deadline = ContinuousClock.now + limit
      var ticks = 0
      while true {
        ticks = Self.ticksBetween(seen.values, after: start, before: delivered.value)
        if ticks >= needed || ContinuousClock.now > deadline { break }
        try? await Task.sleep(for: .milliseconds(10))
      }
      stop()
      return ticks
    }.value
    ticking.unsubscribe()
    return ticks
  }

  /// How many of the counts seen by ticks lie above `start` and below `end`, each differing from
  /// the count of the tick before it.
  nonisolated static func ticksBetween(_ counts: [Int], after start: Int, before end: Int) -> Int {
    zip([start] + counts, counts).filter { previous, count in
      count > start && count < end && count != previous
    }.count
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

  /// Tells the writer to stop after its write under way; returns at once, from any thread.
  func stopWriting() {
    stopped.store(true, ordering: .relaxed)
  }

  /// Stops the writer and waits for its last write, which the reader must still drain: without
  /// blocking the thread, since the reader reads on only once the test's actor has its chunks.
  func stop() async {
    stopped.store(true, ordering: .relaxed)
    while !finished.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
  }
}
