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
@MainActor @Suite(.serialized, .checksLiveResources) struct FileDescriptorsTests {
  @Test func aStreamOfTheValuesTakesTheOperatorsAndLeavesTheStatusOut() async throws {
    let pipe = Pipe()
    let lengths = Recorder<Int>()
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .stream().map(\.count).filter { $0 > 1 }
      .subscribe(lengths.record)
    pipe.send("a\nbb\nccc\n")
    #expect(await lengths.arrival(ofCount: 2))
    close(pipe.write)
    subscription.unsubscribe()
    #expect(lengths.values == [2, 3])
  }

  @Test func linesOfAPipeSplitOnLineFeedsAcceptCRLFAndWaitForUnfinishedLines() async throws {
    let pipe = Pipe()
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: lines.record, status: statuses.record)
    pipe.send("one\ntwo\r\nthr")
    #expect(await lines.arrival(ofCount: 2))
    pipe.send("ee\nfour")
    #expect(await lines.arrival(ofCount: 3))
    close(pipe.write)
    #expect(await statuses.arrival(ofCount: 1))
    #expect(lines.values == ["one", "two", "three", "four"])
    #expect(statuses.values == [.endOfFile])
    subscription.unsubscribe()
  }

  /// Pipe streams that wait, receive a line, then end of file, while the caller keeps its end
  /// open (so the descriptor stays readable, as `follow` keeps standard input), and are then
  /// unsubscribed. A reader that suspended its read source for its turns and resumed it made
  /// libdispatch's epoll loop read freed memory and crash the process (SIGSEGV in
  /// `_dispatch_event_loop_drain`; see `SourceReader`).
  @Test func manyPipeStreamsEndingWhileTheirDescriptorStaysReadableKeepDispatchWell() async throws {
    for _ in 0..<150 {
      let pipes = (0..<8).map { _ in Pipe() }
      let lines = Recorder<String>()
      let statuses = Recorder<DescriptorStatus>()
      let subscriptions = try pipes.map { pipe in
        try FileDescriptors.lines(of: pipe.read, ownership: .callerCloses)
          .subscribe(next: lines.record, status: statuses.record)
      }
      try await Task.sleep(for: .milliseconds(2))  // each reader now waits on its source
      for pipe in pipes { pipe.send("a line\n") }
      try await Task.sleep(for: .milliseconds(1))
      for pipe in pipes { close(pipe.write) }
      #expect(await statuses.arrival(ofCount: pipes.count))
      #expect(lines.count == pipes.count)
      for subscription in subscriptions { subscription.unsubscribe() }
      for pipe in pipes { close(pipe.read) }
    }
  }

  @Test func bytesOfAPipeArriveInOrderThenEndOfFile() async throws {
    let pipe = Pipe()
    let bytes = Recorder<UInt8>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { $0.forEach(bytes.record) }, status: statuses.record)
    for chunk in ["ab", "cd", "ef"] { pipe.send(chunk) }
    close(pipe.write)
    #expect(await statuses.arrival(ofCount: 1))
    #expect(String(decoding: bytes.values, as: UTF8.self) == "abcdef")
    #expect(statuses.values == [.endOfFile])
    subscription.unsubscribe()
  }

  @Test func streamClosesAnOwnedDescriptorWhenItsSubscriptionEnds() async throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = try? FileIdentity(descriptor: pipe.read)
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { _ in })
    #expect(isStillOpen(pipe.read, identity))
    subscription.unsubscribe()
    #expect(await eventually { !isStillOpen(pipe.read, identity) })
  }

  @Test func anOwnedDescriptorIsReadItselfNotThroughADuplicate() async throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = try? FileIdentity(descriptor: pipe.read)
    let lines = Recorder<String>()
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: lines.record)
    pipe.send("one\n")
    #expect(await lines.arrival(ofCount: 1))
    // The stream's one subscription reads the descriptor it was given: beside the write end
    // (same inode), one descriptor in all.
    #expect(descriptorsOpen(on: identity) == 2)
    subscription.unsubscribe()
    #expect(await eventually { descriptorsOpen(on: identity) == 1 })
  }

  @Test func anOwnedDescriptorLentToItsFirstSubscriptionServesTheOthersUntilTheLastEnds()
    async throws
  {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = try? FileIdentity(descriptor: pipe.read)
    let stream = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
    let first = stream.subscribe(next: { _ in })
    let second = stream.subscribe(next: { _ in })
    // Beside the write end (same inode): the descriptor and one duplicate.
    #expect(descriptorsOpen(on: identity) == 3)
    // The first, which reads the descriptor itself, ends first: the stream keeps it for the
    // second, and a third subscription still gets a working duplicate of it.
    first.unsubscribe()
    let lines = Recorder<String>()
    let third = stream.subscribe(next: lines.record)
    second.unsubscribe()
    pipe.send("still here\n")
    #expect(await lines.arrival(ofCount: 1))
    #expect(lines.values == ["still here"])
    third.unsubscribe()
    #expect(await eventually { descriptorsOpen(on: identity) == 1 })
  }

  @Test func streamLeavesABorrowedDescriptorOpen() async throws {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let lines = Recorder<String>()
    let stream = try FileDescriptors.lines(of: pipe.read, ownership: .callerCloses)
    stream.subscribe(next: lines.record).unsubscribe()
    try await Task.sleep(for: .seconds(0.05))
    #expect(isOpen(pipe.read))
    // The descriptor still works: a new subscription reads it.
    let subscription = stream.subscribe(next: lines.record)
    pipe.send("still here\n")
    #expect(await lines.arrival(ofCount: 1))
    #expect(lines.values == ["still here"])
    subscription.unsubscribe()
  }

  @Test func anOwnedDescriptorIsClosedWhenTheStreamGoesAwayUnsubscribed() async throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = try? FileIdentity(descriptor: pipe.read)
    do { _ = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses) }
    #expect(!isStillOpen(pipe.read, identity))
  }

  @Test func subscribingAgainAfterTheStreamClosedItsDescriptorReportsItOnTheStatusChannel()
    async throws
  {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let stream = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
    stream.subscribe(next: { _ in }).unsubscribe()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = stream.subscribe(next: { _ in }, status: statuses.record)
    #expect(await statuses.arrival(ofCount: 1))
    #expect(statuses.values == [.failed(.closedByStream(pipe.read))])
    subscription.unsubscribe()
  }

  @Test func subscribingOnTheSendingThreadAfterTheStreamClosedItsDescriptorReportsItInside()
    throws
  {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let stream = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses)
    stream.subscribe(on: .sendingThread, next: { _ in }).unsubscribe()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = stream.subscribe(
      on: .sendingThread, next: { _ in }, status: statuses.record)
    // Told on the subscribing thread, before `subscribe` returned.
    #expect(statuses.values == [.failed(.closedByStream(pipe.read))])
    subscription.unsubscribe()
  }

  /// One stream, made once, subscribed both ways: on the main actor and on the thread that
  /// reads; each subscription reads the file on its own, and both see all of it.
  @Test func oneStreamIsSubscribedOnTheActorAndOnTheSendingThread() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("one\ntwo\n", to: path)
    let refills = SendableEmitter<Void>()
    let stream = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refills.trigger)
    var onActor: [String] = []
    let onSendingThread = Recorder<String>()
    let actorSubscription = stream.subscribe(next: { line in
      MainActor.assertIsolated()
      onActor.append(line)
    })
    let threadSubscription = stream.subscribe(on: .sendingThread, next: onSendingThread.record)
    // Both first passes inside `subscribe`.
    #expect(onActor == ["one", "two"])
    #expect(onSendingThread.values == ["one", "two"])
    append("three\n", to: path)
    DispatchQueue.global().async { refills.send() }
    #expect(await onSendingThread.arrival(ofCount: 3))
    #expect(await eventually { onActor.count == 3 })
    #expect(onActor == ["one", "two", "three"])
    #expect(onSendingThread.values == ["one", "two", "three"])
    actorSubscription.unsubscribe()
    threadSubscription.unsubscribe()
  }

  @Test func badDescriptorsAreThrownWhenTheStreamIsMade() async throws {
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

  @Test func aRegularFileIsReadOnceWithItsLastLineFlushedWithoutRefill() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("a\nb\nlast", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let fd = open(path, O_RDONLY)
    let subscription = try FileDescriptors.lines(of: fd, ownership: .streamCloses)
      .subscribe(next: lines.record, status: statuses.record)
    #expect(await statuses.arrival(ofCount: 1))
    #expect(lines.values == ["a", "b", "last"])
    #expect(statuses.values == [.endOfFile])
    subscription.unsubscribe()
  }

  @Test func aFollowedRegularFileReadsWhatIsAppendedAndRestartsAfterTruncation() async throws {
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
    #expect(await lines.arrival(ofCount: 1))
    append("second\nhalf", to: path)
    refill.fire()
    #expect(await lines.arrival(ofCount: 2))
    append(" done\n", to: path)
    refill.fire()
    #expect(await lines.arrival(ofCount: 3))
    truncate(path, 0)
    append("again\n", to: path)
    refill.fire()
    #expect(await lines.arrival(ofCount: 4))
    #expect(lines.values == ["first", "second", "half done", "again"])
    #expect(await statuses.arrival { $0.contains(.truncated) })
    subscription.unsubscribe()
  }

  /// A refill delivered on the subscriber's actor reads there and delivers what it read in the
  /// same call, before the refill's `send` returns: one turn of the actor per change, not two.
  /// A refill sent again from inside that delivery reads on to the new end, in order.
  @Test func aRefillOnTheSubscribersActorDeliversBeforeItsSendReturns() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("first\n", to: path)
    let refills = SendableEmitter<Void>()
    var lines: [String] = []
    var statuses: [DescriptorStatus] = []
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(
      next: { line in
        lines.append(line)
        if line == "second" {
          append("third\n", to: path)
          refills.send()
        }
      },
      status: { statuses.append($0) })
    #expect(await eventually { statuses.contains(.endOfFile) })
    #expect(lines == ["first"])
    append("second\n", to: path)
    refills.send()
    #expect(lines == ["first", "second", "third"])
    subscription.unsubscribe()
    append("fourth\n", to: path)
    refills.send()
    #expect(lines == ["first", "second", "third"])
  }

  /// A change's first read goes to the reader's small buffer (4 KiB past the 256 bytes
  /// compared), and is read again into a chunk's worth (64 KiB) when it fills it; a turn reads
  /// one chunk: appends of every size around those, each cutting a line and some a character,
  /// arrive whole and in order.
  @Test func appendsAroundTheReadBuffersSizesArriveWholeAndInOrder() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    var content = Array("start\n".utf8)
    appendBytes(content, to: path)
    let refills = SendableEmitter<Void>()
    var lines: [String] = []
    var ends = 0
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(next: { lines.append($0) }, status: { if $0 == .endOfFile { ends += 1 } })
    #expect(await eventually { ends == 1 })
    /// The complete lines of everything appended so far.
    func completeLines() -> [String] {
      content.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        .map { String(decoding: $0, as: UTF8.self) }
    }
    var number = 0
    for size in [1, 1023, 1024, 1025, 4095, 4096, 4097, 9000, 65_535, 65_536, 65_537, 140_000] {
      var block: [UInt8] = []
      while block.count <= size {
        number += 1
        block += Array("line \(number) é\n".utf8)
      }
      // Cut at `size` bytes: inside a line, and for some sizes inside its "é".
      for part in [block[..<size], block[size...]] {
        appendBytes(Array(part), to: path)
        content += part
        refills.send()
        // More than a chunk's worth is read in turns that follow on the poller's thread.
        let expected = completeLines()
        #expect(await eventually { lines.count >= expected.count }, "size \(size)")
        #expect(lines.count == expected.count && lines == expected, "size \(size)")
      }
    }
    subscription.unsubscribe()
  }

  /// A change larger than the first read's small buffer is still one chunk of bytes: the turn
  /// reads it again whole, rather than handing over the small read and the rest.
  @Test func aChangeLargerThanTheFirstReadIsOneChunkOfBytes() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    appendBytes([], to: path)
    let refills = SendableEmitter<Void>()
    var chunks: [[UInt8]] = []
    var ends = 0
    let subscription = try FileDescriptors.bytes(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(next: { chunks.append($0) }, status: { if $0 == .endOfFile { ends += 1 } })
    #expect(await eventually { ends == 1 })
    for size in [500, 768, 769, 1000, 5000] {
      chunks = []
      let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
      appendBytes(bytes, to: path)
      refills.send()
      #expect(chunks == [bytes], "size \(size)")
    }
    subscription.unsubscribe()
  }

  /// On `.sendingThread`, `refill` reads on the thread that sends, before `send` returns, and
  /// delivers there: a line appended and sent, then taken away at once, is delivered. Sent from
  /// another thread, the same; a truncation is seen as on an actor; after unsubscribe, nothing.
  @Test func aFileFollowedOnTheSendingThreadIsReadWhereTheRefillIsSent() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("first\n", to: path)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let refills = SendableEmitter<Void>()
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(on: .sendingThread, next: lines.record, status: statuses.record)
    #expect(await lines.arrival(ofCount: 1))
    #expect(await statuses.arrival { $0.contains(.endOfFile) })
    append("second\n", to: path)
    refills.send()
    // Read and delivered already, on this thread.
    #expect(lines.values == ["first", "second"])
    truncate(path, 0)
    #expect(await lines.arrival(ofCount: 2))
    #expect(lines.values == ["first", "second"])
    append("third\nhalf", to: path)
    DispatchQueue.global().async { refills.send() }
    #expect(await lines.arrival(ofCount: 3))
    #expect(lines.values == ["first", "second", "third"])
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
    append(" done\n", to: path)
    refills.send()  // after unsubscribe: reads nothing, delivers nothing
    try await Task.sleep(for: .milliseconds(50))
    #expect(lines.values.count == 3)
  }

  /// A refill sent from two threads at once, on `.sendingThread`: each send may read, on its
  /// own thread, what
  /// the other's pass left, and the lines still reach the subscriber once each, in the file's
  /// order. (A pass that ended under the reader's lock but handed its lines over after it let
  /// a pass begun on the other thread hand over first: lines out of order.)
  @Test func refillsSentFromTwoThreadsAtOnceDeliverTheLinesInOrder() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("", to: path)
    let lines = Recorder<String>()
    let refills = SendableEmitter<Void>()
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(on: .sendingThread, next: lines.record, status: { _ in })
    let count = 4_000
    let writer = Thread {
      for number in 0..<count {
        append("\(number)\n", to: path)
        refills.send()
      }
    }
    let other = Thread {
      for _ in 0..<(count * 2) { refills.send() }
    }
    writer.start()
    other.start()
    #expect(await lines.arrival(ofCount: count))
    #expect(lines.values == (0..<count).map(String.init))
    subscription.unsubscribe()
  }

  /// copytruncate with a fast writer: the file is emptied and written past the old read
  /// position before the reader looks again, so it never looks shorter.
  @Test func aFileTruncatedAndRewrittenPastTheReadPositionIsReadAgainFromItsStart() async throws {
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
    #expect(await lines.arrival(ofCount: 2))
    truncate(path, 0)
    append("new line 1, longer than the whole old file\nnew line 2\n", to: path)
    refill.fire()
    #expect(await lines.arrival(ofCount: 4))
    #expect(
      lines.values == [
        "line 1", "line 2", "new line 1, longer than the whole old file", "new line 2",
      ])
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
  }

  /// The same, while a read pass is going on: the file is truncated and written again, longer
  /// than the whole old file, between two turns of one pass (here by the subscriber, on the
  /// delivery of a line of the first turn: the file is two chunks long, so the pass has a
  /// second turn, after the delivery). The new file is longer than the position, so only its
  /// content tells the rewrite: a reader that checks the length alone goes on from the old
  /// position and loses the new file's first 1,024 lines.
  @Test func aFileRewrittenDuringAReadPassIsReadAgainFromItsStart() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    func lines(_ name: String, _ count: Int) -> [String] {
      (1...count).map { "\(name) \($0)".padding(toLength: 63, withPad: ".", startingAt: 0) }
    }
    // 2,048 lines of 64 bytes: the first turn reads 64 KiB, lines 1 to 1,024. The new file has
    // 3,072.
    let old = lines("line", 2_048)
    let new = lines("new line", 3_072)
    append(old.joined(separator: "\n") + "\n", to: path)
    let received = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let refill = Broadcaster()
    let subscription = try FileDescriptors.lines(
      of: open(path, O_RDONLY), ownership: .streamCloses, refill: refill.stream
    ).subscribe(
      next: { line in
        received.record(line)
        if line == old[1] {
          truncate(path, 0)
          append(new.joined(separator: "\n") + "\n", to: path)
        }
      }, status: statuses.record)
    #expect(await received.arrival(ofCount: 1_024 + 3_072))
    #expect(await statuses.arrival { $0.contains(.endOfFile) })
    #expect(received.values == old[..<1_024] + new)
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
  }

  /// The same, when the new content is exactly as long as what was read.
  @Test func aFileRewrittenToTheSameLengthIsReadAgainFromItsStart() async throws {
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
    #expect(await lines.arrival(ofCount: 1))
    truncate(path, 0)
    append("new 1\n", to: path)
    refill.fire()
    #expect(await lines.arrival(ofCount: 2))
    #expect(lines.values == ["old 1", "new 1"])
    #expect(statuses.values.contains(.truncated))
    subscription.unsubscribe()
  }

  @Test func unsubscribeInTheSubscriberStopsTheRestOfAChunk() async throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let lines = Recorder<String>()
    var subscription: SendableSubscription?
    subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
      .subscribe(next: { line in
        lines.record(line)
        subscription?.unsubscribe()
      })
    pipe.send("1\n2\n3\n")
    #expect(await lines.arrival(ofCount: 1))
    try await Task.sleep(for: .seconds(0.05))
    #expect(lines.values == ["1"])
  }

  @Test func aLineLongerThanTheMaximumIsDeliveredInPieces() async throws {
    let pipe = Pipe()
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.lines(
      of: pipe.read, ownership: .streamCloses, maximumLineLength: 4
    ).subscribe(next: lines.record, status: statuses.record)
    pipe.send("abcdefghij\nxy\n")
    close(pipe.write)
    #expect(await statuses.arrival(ofCount: 1))
    #expect(lines.values == ["abcd", "efgh", "ij", "xy"])
    subscription.unsubscribe()
  }

  @Test func readinessStreamsDeliverWhenTheDescriptorIsReady() async throws {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let writable = Recorder<Int>()
    let writing = try FileDescriptors.writable(pipe.write, ownership: .callerCloses)
      .subscribe(next: writable.record)
    #expect(await writable.arrival(ofCount: 1))
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
    #expect(await readable.arrival(ofCount: 1))
    reading.unsubscribe()
    #expect(readable.values.first == 1)
  }

  /// `readable` reports what a read would return; `writable`, a pipe's free space (Linux). Both
  /// report again once the subscriber has received a report, while the descriptor stays ready.
  @Test func readinessReportsTheBytesToReadAndThePipesFreeSpace() async throws {
    let pipe = Pipe()
    pipe.send("12345")
    let readable = Recorder<Int>()
    let reading = try FileDescriptors.readable(pipe.read, ownership: .callerCloses)
      .subscribe(next: readable.record)
    #expect(await readable.arrival(ofCount: 2))
    #expect(readable.values.prefix(2) == [5, 5])
    reading.unsubscribe()

    let writable = Recorder<Int>()
    let writing = try FileDescriptors.writable(pipe.write, ownership: .callerCloses)
      .subscribe(next: writable.record)
    #expect(await writable.arrival(ofCount: 1))
    #if os(Linux)
      #expect(writable.values.first == Int(fcntl(pipe.write, 1032 /* F_GETPIPE_SZ */)) - 5)
    #endif
    writing.unsubscribe()
    close(pipe.read)
    close(pipe.write)
  }

  /// A stream unsubscribed while it waits for data lets go of its reader at once, even when no
  /// other descriptor becomes ready: the poller keeps no waiter alive while it polls.
  ///
  /// It reads the process's count of live readers, which every test running at the same time
  /// changes: so it runs where the counts are exact, with `CHECK_LIVE_RESOURCES=1`, which needs
  /// tests one at a time (CI's AddressSanitizer step).
  @Test(.enabled(if: LiveResourcesCheck.isEnabled, "counts live readers: needs a serial run"))
  func aStreamUnsubscribedWhileItWaitsLetsGoOfItsReader() async throws {
    guard LiveResources.areCounted else { return }  // a debug build counts readers
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let before = LiveResources.counts[.producerObservers] ?? 0
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .callerCloses)
      .subscribe(next: { _ in })
    try await Task.sleep(for: .milliseconds(20))  // the reader now waits for data
    #expect(LiveResources.counts[.producerObservers] == before + 1)
    subscription.unsubscribe()
    #expect(await eventually { LiveResources.counts[.producerObservers] == before })
  }

  @Test func manySubscriptionsLeaveNoDescriptorOpen() async throws {
    var identities: [(Int32, FileIdentity?)] = []
    for _ in 0..<200 {
      let pipe = Pipe()
      identities.append((pipe.read, try? FileIdentity(descriptor: pipe.read)))
      let lines = Recorder<String>()
      let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses)
        .subscribe(next: lines.record)
      pipe.send("x\n")
      #expect(await lines.arrival(ofCount: 1))
      subscription.unsubscribe()
      close(pipe.write)
    }
    #expect(await eventually { identities.allSatisfy { !isStillOpen($0.0, $0.1) } })
  }
}

/// A refill trigger that a test fires by hand.
final class Broadcaster: Sendable {
  private let gates = LockedState<(next: Int, gates: [Int: ObserverGate<Void>])>((0, [:]))

  /// Each subscription's gate fires with `fire()`.
  var stream: Producer<Void> {
    Producer { gate in
      let key = self.gates.withLock { state in
        state.next += 1
        state.gates[state.next] = gate
        return state.next
      }
      return { _ = self.gates.withLock { $0.gates.removeValue(forKey: key) } }
    }
  }

  /// Fires every subscription's gate from the caller's isolation: a subscriber on that actor
  /// is called before this returns.
  func fire(isolation: isolated (any Actor)? = #isolation) {
    for gate in gates.withLock({ Array($0.gates.values) }) { gate.send((), isolation: isolation) }
  }
}

extension SendableEmitter where Value == Void {
  /// The sends of this emitter as a refill trigger: delivered where each send runs, before it
  /// returns, to a subscriber on the sender's actor or on `.sendingThread`; otherwise after a
  /// hop to the subscriber's actor.
  var trigger: Producer<Void> {
    Producer { gate in
      self.subscribe(on: .sendingThread, replayingLast: false) {
        gate.sendFromCurrentThread(())
      }.unsubscribe
    }
  }
}

/// Appends `bytes` to the file at `path` as they are, in one write, creating it.
private func appendBytes(_ bytes: [UInt8], to path: String) {
  let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
  precondition(fd >= 0, "open \(path) failed")
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  close(fd)
}
