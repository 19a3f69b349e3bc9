import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

// Serialized: many read sources registered and cancelled at once, from parallel tests, crash
// libdispatch's epoll loop on Linux now and then (swift-corelibs-libdispatch#949; see
// Guarantees.md, "What is not guaranteed").
@Suite(.serialized, .checksLiveResources) struct FileDescriptorsTests {
  @Test func linesOfAPipeSplitOnLineFeedsAcceptCRLFAndWaitForUnfinishedLines() throws {
    let pipe = Pipe()
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: lines.record, status: statuses.record)
    pipe.send("one\ntwo\r\nthr")
    #expect(lines.wait(forCount: 2))
    pipe.send("ee\nfour")
    #expect(lines.wait(forCount: 3))
    close(pipe.write)
    #expect(statuses.wait(forCount: 1))
    #expect(lines.values == ["one", "two", "three", "four"])
    #expect(statuses.values == [.endOfFile])
    subscription.unsubscribe()
  }

  @Test func bytesOfAPipeArriveInOrderThenEndOfFile() throws {
    let pipe = Pipe()
    let bytes = Recorder<UInt8>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { $0.forEach(bytes.record) }, status: statuses.record)
    for chunk in ["ab", "cd", "ef"] { pipe.send(chunk) }
    close(pipe.write)
    #expect(statuses.wait(forCount: 1))
    #expect(String(decoding: bytes.values, as: UTF8.self) == "abcdef")
    #expect(statuses.values == [.endOfFile])
    subscription.unsubscribe()
  }

  @Test func streamClosesAnOwnedDescriptorWhenItsSubscriptionEnds() throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = FileIdentity(pipe.read)
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { _ in })
    #expect(isStillOpen(pipe.read, identity))
    subscription.unsubscribe()
    #expect(eventually { !isStillOpen(pipe.read, identity) })
  }

  @Test func streamLeavesABorrowedDescriptorOpen() throws {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let lines = Recorder<String>()
    let stream = try FileDescriptors.lines(of: pipe.read, ownership: .callerCloses)
    stream.subscribe(next: lines.record).unsubscribe()
    Thread.sleep(forTimeInterval: 0.05)
    #expect(isOpen(pipe.read))
    // The descriptor still works: a new subscription reads it.
    let subscription = stream.subscribe(next: lines.record)
    pipe.send("still here\n")
    #expect(lines.wait(forCount: 1))
    #expect(lines.values == ["still here"])
    subscription.unsubscribe()
  }

  @Test func anOwnedDescriptorIsClosedWhenTheStreamGoesAwayUnsubscribed() throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = FileIdentity(pipe.read)
    do { _ = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses) }
    #expect(!isStillOpen(pipe.read, identity))
  }

  @Test func subscribingAgainAfterTheStreamClosedItsDescriptorReportsItOnTheStatusChannel()
    throws
  {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let stream = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
    stream.subscribe(next: { _ in }).unsubscribe()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = stream.subscribe(next: { _ in }, status: statuses.record)
    #expect(statuses.wait(forCount: 1))
    #expect(statuses.values == [.failed(.closedByStream(pipe.read))])
    subscription.unsubscribe()
  }

  @Test func badDescriptorsAreThrownWhenTheStreamIsMade() throws {
    #expect(throws: FileDescriptorError.negative(-1)) {
      try FileDescriptors.lines(of: -1, ownership: .callerCloses)
    }
    // A closed descriptor: a high number, so that no test running in parallel reuses it.
    let pipe = Pipe()
    let closed = dup2(pipe.read, 900)
    close(closed)
    close(pipe.read)
    #expect(throws: FileDescriptorError.notOpen(closed)) {
      try FileDescriptors.bytes(of: closed, ownership: .callerCloses)
    }
    #expect(throws: FileDescriptorError.notOpen(987_654)) {
      try FileDescriptors.readable(987_654, ownership: .callerCloses)
    }
    #expect(throws: FileDescriptorError.notReadable(pipe.write)) {
      try FileDescriptors.lines(of: pipe.write, ownership: .callerCloses)
    }
    close(pipe.write)
    let other = Pipe()
    defer {
      close(other.read)
      close(other.write)
    }
    #expect(throws: FileDescriptorError.notWritable(other.read)) {
      try FileDescriptors.writable(other.read, ownership: .callerCloses)
    }
    let directory = open("/tmp", O_RDONLY | O_DIRECTORY)
    defer { close(directory) }
    #expect(throws: FileDescriptorError.isDirectory(directory)) {
      try FileDescriptors.lines(of: directory, ownership: .callerCloses)
    }
  }

  @Test func aRegularFileIsReadOnceWithItsLastLineFlushedWithoutRefill() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("a\nb\nlast", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let fd = open(path, O_RDONLY)
    let subscription = try FileDescriptors.lines(of: fd, ownership: .streamCloses)
      .subscribe(next: lines.record, status: statuses.record)
    #expect(statuses.wait(forCount: 1))
    #expect(lines.values == ["a", "b", "last"])
    #expect(statuses.values == [.endOfFile])
    subscription.unsubscribe()
  }

  @Test func aFollowedRegularFileReadsWhatIsAppendedAndRestartsAfterTruncation() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("first\n", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let refill = Broadcaster()
    let fd = open(path, O_RDONLY)
    let subscription = try FileDescriptors.lines(
      of: fd, ownership: .streamCloses, refill: refill.stream
    ).subscribe(next: lines.record, status: statuses.record)
    #expect(lines.wait(forCount: 1))
    append("second\nhalf", to: path)
    refill.fire()
    #expect(lines.wait(forCount: 2))
    append(" done\n", to: path)
    refill.fire()
    #expect(lines.wait(forCount: 3))
    truncate(path, 0)
    append("again\n", to: path)
    refill.fire()
    #expect(lines.wait(forCount: 4))
    #expect(lines.values == ["first", "second", "half done", "again"])
    #expect(statuses.wait { $0.contains(.truncated) })
    subscription.unsubscribe()
  }

  /// copytruncate with a fast writer: the file is emptied and written past the old read
  /// position before the reader looks again, so it never looks shorter.
  @Test func aFileTruncatedAndRewrittenPastTheReadPositionIsReadAgainFromItsStart() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("line 1\nline 2\n", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let refill = Broadcaster()
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refill.stream
    ).subscribe(next: lines.record, status: statuses.record)
    #expect(lines.wait(forCount: 2))
    truncate(path, 0)
    append("new line 1, longer than the whole old file\nnew line 2\n", to: path)
    refill.fire()
    #expect(lines.wait(forCount: 4))
    #expect(
      lines.values == [
        "line 1", "line 2", "new line 1, longer than the whole old file", "new line 2",
      ])
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
  }

  /// The same, while a read pass is going on: the file is truncated and written again between
  /// two reads of one pass (here by the subscriber, on the delivery of a line).
  @Test func aFileRewrittenDuringAReadPassIsReadAgainFromItsStart() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("line 1\nline 2\n", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let refill = Broadcaster()
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refill.stream
    ).subscribe(
      next: { line in
        lines.record(line)
        if line == "line 2" {
          truncate(path, 0)
          append("new line 1, longer than the whole old file\nnew line 2\n", to: path)
        }
      }, status: statuses.record)
    #expect(lines.wait(forCount: 4))
    #expect(statuses.wait { $0.contains(.endOfFile) })
    #expect(
      lines.values == [
        "line 1", "line 2", "new line 1, longer than the whole old file", "new line 2",
      ])
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
  }

  /// The same, when the new content is exactly as long as what was read.
  @Test func aFileRewrittenToTheSameLengthIsReadAgainFromItsStart() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("old 1\n", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let refill = Broadcaster()
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refill.stream
    ).subscribe(next: lines.record, status: statuses.record)
    #expect(lines.wait(forCount: 1))
    truncate(path, 0)
    append("new 1\n", to: path)
    refill.fire()
    #expect(lines.wait(forCount: 2))
    #expect(lines.values == ["old 1", "new 1"])
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
  }

  @Test func unsubscribeOnTheDeliveryQueueStopsTheRestOfAChunk() throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let lines = Recorder<String>()
    let queue = DispatchQueue(label: "delivery")
    nonisolated(unsafe) var subscription: Subscription?
    let ready = DispatchSemaphore(value: 0)
    queue.sync {
      subscription = try? FileDescriptors.lines(of: pipe.read, ownership: .streamCloses, on: queue)
        .subscribe(next: { line in
          lines.record(line)
          subscription?.unsubscribe()
          ready.signal()
        })
    }
    pipe.send("1\n2\n3\n")
    #expect(ready.wait(timeout: .now() + 5) == .success)
    Thread.sleep(forTimeInterval: 0.05)
    #expect(lines.values == ["1"])
  }

  @Test func aLineLongerThanTheMaximumIsDeliveredInPieces() throws {
    let pipe = Pipe()
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.lines(
      of: pipe.read, ownership: .streamCloses, maximumLineLength: 4
    ).subscribe(next: lines.record, status: statuses.record)
    pipe.send("abcdefghij\nxy\n")
    close(pipe.write)
    #expect(statuses.wait(forCount: 1))
    #expect(lines.values == ["abcd", "efgh", "ij", "xy"])
    subscription.unsubscribe()
  }

  @Test func readinessStreamsDeliverWhenTheDescriptorIsReady() throws {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let writable = Recorder<Int>()
    let writing = try FileDescriptors.writable(pipe.write, ownership: .callerCloses)
      .subscribe(next: writable.record)
    #expect(writable.wait(forCount: 1))
    writing.unsubscribe()
    let readable = Recorder<Int>()
    let reading = try FileDescriptors.readable(pipe.read, ownership: .callerCloses)
      .subscribe(next: { available in
        // Read before recording: once recorded, the test may unsubscribe and close the pipe.
        var byte: UInt8 = 0
        _ = read(pipe.read, &byte, 1)
        readable.record(available)
      })
    pipe.send("x")
    #expect(readable.wait(forCount: 1))
    reading.unsubscribe()
    #expect(readable.values.first == 1)
  }

  @Test func manySubscriptionsLeaveNoDescriptorOpen() throws {
    var identities: [(Int32, FileIdentity?)] = []
    for _ in 0..<200 {
      let pipe = Pipe()
      identities.append((pipe.read, FileIdentity(pipe.read)))
      let lines = Recorder<String>()
      let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
        .subscribe(next: lines.record)
      pipe.send("x\n")
      #expect(lines.wait(forCount: 1))
      subscription.unsubscribe()
      close(pipe.write)
    }
    #expect(eventually { identities.allSatisfy { !isStillOpen($0.0, $0.1) } })
  }
}

/// A refill trigger that a test fires by hand.
final class Broadcaster: @unchecked Sendable {
  // `observers` is guarded by `lock`.
  private let lock = NSLock()
  private var observers: [Int: () -> Void] = [:]
  private var nextKey = 0

  var stream: ValueObservable<Void> {
    ValueObservable { observer in
      let key = self.lock.withLock {
        self.nextKey += 1
        self.observers[self.nextKey] = { observer.next(()) }
        return self.nextKey
      }
      return { _ = self.lock.withLock { self.observers.removeValue(forKey: key) } }
    }
  }

  func fire() {
    for observer in lock.withLock({ Array(observers.values) }) { observer() }
  }
}
