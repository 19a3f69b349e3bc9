import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every producer's bad inputs, in one table each: each gets its documented thrown error, with
/// no crash, no descriptor left open and no signal disposition changed.
@MainActor @Suite(.checksLiveResources) struct HostileInputTests {
  /// A descriptor number that was open and is closed now; high, so that no test running in
  /// parallel is given it again.
  nonisolated static let closedDescriptor: Int32 = {
    let pipe = Pipe()
    let number = dup2(pipe.read, 901)
    close(number)
    close(pipe.read)
    close(pipe.write)
    return number
  }()

  @Test(arguments: [
    (Int32(-1), FileDescriptorError.negative(-1)),
    (closedDescriptor, .notOpen(closedDescriptor)),
    (Int32(987_654), .notOpen(987_654)),
  ])
  func badDescriptorsAreRefusedByEveryDescriptorStream(
    fd: Int32, error: FileDescriptorError
  ) async {
    #expect(
      await leavesNoDescriptorOpen {
        #expect(throws: error) { try FileDescriptors.lines(of: fd, ownership: .streamCloses) }
        #expect(throws: error) { try FileDescriptors.bytes(of: fd, ownership: .callerCloses) }
        #expect(throws: error) { try FileDescriptors.readable(fd, ownership: .callerCloses) }
        #expect(throws: error) { try FileDescriptors.writable(fd, ownership: .callerCloses) }
        #expect(throws: FileWatchError.descriptor(error)) { try FileWatch.changes(of: fd) }
      })
  }

  /// Runs `body` 50 times; whether the process's descriptors did not grow with it. Other
  /// tests open descriptors in parallel, so a few more are allowed, but not one per run.
  func leavesNoDescriptorOpen(_ body: () -> Void) async -> Bool {
    let before = openDescriptorCount()
    for _ in 0..<50 { body() }
    return await eventually { openDescriptorCount() < before + 20 }
  }

  @Test func aDirectoryDescriptorIsRefusedAndLeftOpenForItsOwner() async throws {
    let directory = open("/tmp", O_RDONLY | O_DIRECTORY)
    defer { close(directory) }
    #expect(throws: FileDescriptorError.isDirectory(directory)) {
      try FileDescriptors.lines(of: directory, ownership: .streamCloses)
    }
    #expect(throws: FileDescriptorError.isDirectory(directory)) {
      try FileDescriptors.readable(directory, ownership: .streamCloses)
    }
    // A refused descriptor stays the caller's, even when it offered ownership.
    #expect(isOpen(directory))
  }

  /// A line length below 1 is refused when the stream is made, before the descriptor is
  /// touched: it stays open for its owner.
  @Test(arguments: [0, -5, Int.min])
  func aLineLengthBelowOneIsRefusedAndTheDescriptorLeftOpen(length: Int) async throws {
    let file = open("/etc/hostname", O_RDONLY)
    try #require(file >= 0)
    defer { close(file) }
    #expect(throws: FileDescriptorError.maximumLineLengthNotPositive(length)) {
      try FileDescriptors.lines(of: file, ownership: .streamCloses, maximumLineLength: length)
    }
    #expect(isOpen(file))
  }

  @Test(arguments: [
    (Int32(0), SignalError.outOfRange(0)),
    (Int32(65), .outOfRange(65)),
    (Int32(-3), .outOfRange(-3)),
    (SIGKILL, .notCatchable(UnixSignal(rawValue: SIGKILL))),
    (SIGSTOP, .notCatchable(UnixSignal(rawValue: SIGSTOP))),
  ])
  func badSignalsAreRefusedAndNoDispositionChanges(number: Int32, error: SignalError) {
    let before = (1...64).filter { $0 != 32 && $0 != 33 }.map { Disposition(of: $0) }
    #expect(throws: error) { try Signals.deliveries(of: number) }
    #expect(throws: error) {
      try Signals.deliveries(of: SIGUSR1, number)
    }
    let after = (1...64).filter { $0 != 32 && $0 != 33 }.map { Disposition(of: $0) }
    #expect(before == after)
  }

  @Test(arguments: [Double.nan, .infinity, -.infinity])
  func nonFiniteIntervalsAreRefused(seconds: Double) {
    #expect(throws: TimerError.self) { try Timers.every(seconds: seconds) }
  }

  @Test func missingPathsAreRefusedByTheWatch() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let missing = directory.file("missing")
    // A path through a file, which is not a directory.
    append("x", to: directory.file("file"))
    let through = directory.file("file") + "/child"
    #expect(
      await leavesNoDescriptorOpen {
        #expect(throws: FileWatchError.notFound(missing)) { try FileWatch.changes(at: missing) }
        #expect(throws: FileWatchError.notFound(through)) { try FileWatch.changes(at: through) }
      })
  }

  @Test func aPathDeletedWhileWatchedIsReportedAndTheWatchWaitsForItsReturn() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("watched")
    append("x", to: path)
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
    unlink(path)
    #expect(await changes.arrival { $0.contains(.deleted) })
    append("y", to: path)
    #expect(await changes.arrival { $0.contains(.created) })
    subscription.unsubscribe()
  }

  /// Checked by what happened, in order: the first line, the truncation, then the line written
  /// after it. Each wait is bounded only so that a broken reader fails instead of hanging (60 s;
  /// the 10 s this test had for the truncation did not always suffice under ThreadSanitizer on a
  /// loaded machine, issue 28).
  @Test func aFileTruncatedWhileFollowedIsReadAgainFromItsStart() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("long first line\n", to: path)
    let fd = open(path, O_RDONLY)
    let changes = try FileWatch.changes(of: fd)
    let events = Recorder<FollowedEvent>()
    let subscription = try FileDescriptors.lines(
      of: fd, ownership: .streamCloses, refill: changes.through { $0.map { _ in () } }
    ).subscribe(next: { events.record(.line($0)) }, status: { events.record(.status($0)) })
    #expect(await events.arrival(seconds: 60) { $0.contains(.line("long first line")) })
    truncate(path, 0)
    #expect(await events.arrival(seconds: 60) { $0.contains(.status(.truncated)) })
    append("short\n", to: path)
    #expect(await events.arrival(seconds: 60) { $0.contains(.line("short")) })
    subscription.unsubscribe()
    let seen = events.values.filter { $0 != .status(.endOfFile) }
    #expect(seen == [.line("long first line"), .status(.truncated), .line("short")])
  }

  @Test func aFileTruncatedWhileAPassIsUnderWayIsReadAgainFromItsStart() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("first\n", to: path)
    let refill = Broadcaster()
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let fd = open(path, O_RDONLY)
    let subscription = try FileDescriptors.lines(
      of: fd, ownership: .streamCloses, refill: refill.stream
    ).subscribe(
      next: { line in
        lines.record(line)
        // While the pass that read "second" is under way: rotated, written, and announced.
        if line == "second" {
          truncate(path, 0)
          append("again\n", to: path)
          refill.fire()
        }
      },
      status: statuses.record)
    #expect(await lines.arrival(ofCount: 1))
    append("second\n", to: path)
    refill.fire()
    #expect(await lines.arrival(ofCount: 3))
    #expect(await statuses.arrival { $0.contains(.truncated) })
    subscription.unsubscribe()
    #expect(lines.values == ["first", "second", "again"])
  }

  @Test func devNullSaysEndOfFileAtOnceOnTheBytesAndLinesStreams() async throws {
    let null = open("/dev/null", O_RDONLY)
    defer { close(null) }
    let bytes = Recorder<[UInt8]>()
    let lines = Recorder<String>()
    let byteStatuses = Recorder<DescriptorStatus>()
    let lineStatuses = Recorder<DescriptorStatus>()
    let readingBytes = try FileDescriptors.bytes(of: null, ownership: .callerCloses)
      .subscribe(next: bytes.record, status: byteStatuses.record)
    let readingLines = try FileDescriptors.lines(of: null, ownership: .callerCloses)
      .subscribe(next: lines.record, status: lineStatuses.record)
    #expect(await byteStatuses.arrival(ofCount: 1))
    #expect(await lineStatuses.arrival(ofCount: 1))
    readingBytes.unsubscribe()
    readingLines.unsubscribe()
    #expect(byteStatuses.values == [.endOfFile])
    #expect(lineStatuses.values == [.endOfFile])
    #expect(bytes.values.isEmpty)
    #expect(lines.values.isEmpty)
  }

  // /proc exists on Linux only.
  #if os(Linux)
    @Test(arguments: ["/proc/self/limits", "/proc/uptime"])
    func aFollowedProcFileIsReadOnceAndNeverReportedTruncated(path: String) async throws {
      // Files whose size reads 0 in `stat`; the first keeps its content, the second has new
      // content every 10 ms, of the same length.
      let fd = open(path, O_RDONLY)
      try #require(fd >= 0)
      var info = stat()
      fstat(fd, &info)
      #expect(info.st_size == 0)
      let refill = Broadcaster()
      let lines = Recorder<String>()
      let statuses = Recorder<DescriptorStatus>()
      let subscription = try FileDescriptors.lines(
        of: fd, ownership: .streamCloses, refill: refill.stream
      ).subscribe(next: lines.record, status: statuses.record)
      #expect(await statuses.arrival(ofCount: 1))
      let count = lines.count
      #expect(count > 0)
      for _ in 0..<3 {
        try await Task.sleep(for: .seconds(0.03))
        refill.fire()
        // Let the pass run to its end: a moment, with the main actor free to take its lines.
        try await Task.sleep(for: .seconds(0.1))
      }
      subscription.unsubscribe()
      #expect(statuses.values == [.endOfFile])
      #expect(lines.count == count)
    }
  #endif

}

/// What a followed file's stream delivered, lines and statuses in one order.
enum FollowedEvent: Equatable, Sendable {
  case line(String)
  case status(DescriptorStatus)
}
