import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `follow` costs the system per line: lines read together go out together.
@Suite struct FollowCostTests {
  #if os(Linux)
    /// 2,000 lines appended at once are read in a few chunks, and each chunk's lines go out in
    /// one `write`, not one `write` per line (counted by the kernel: `syscw` of
    /// /proc/PID/io).
    @Test func linesAppendedAtOnceGoOutInFewWrites() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let log = scratch.file("app.log")
      append("start", to: log)
      let follow = try FollowProcess(["app.log"], in: scratch.path)
      #expect(follow.waitForNote("following app.log"))
      let before = try #require(follow.writeCallCount)
      let lines = (1...2_000).map { "line \($0)" }
      let text = Array(lines.map { $0 + "\n" }.joined().utf8)
      let fd = open(log, O_WRONLY | O_APPEND)
      _ = text.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
      close(fd)
      #expect(follow.waitForLines(2_000))
      let writes = try #require(follow.writeCallCount) - before
      follow.send(SIGINT)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == lines)
      // About 19 KB: one chunk, or a few if the writer was caught mid-way; never one per line.
      #expect(writes <= 40, "\(writes) writes for 2,000 lines")
    }

    /// A line appended to a followed file is read and printed on one thread, with no thread
    /// switch: `follow` runs `MainLoop.run()`, so its main thread waits for inotify and for the
    /// main queue's work together, reads the change, and the main-actor subscribers get it in
    /// the same call. Counted as the waits of `follow`'s threads per line, for lines written one
    /// at a time, each once the one before it was printed: one wait a line, the main thread's.
    /// A program that makes one switch by hand (Benchmarks/floor/follow-floor.swift: a `poll`
    /// thread on inotify, then the main queue) waits about 2 times a line, and so did `follow`
    /// with `dispatchMain()` (its poller thread, then the main queue); 3.5 to 3.8 while inotify
    /// was read by a Dispatch read source, and about 6 with a reader's queue in between as well.
    @Test func aLineAppendedIsReadAndPrintedOnOneThread() throws {
      let lineCount = 200
      let waits = try growth(over: lineCount, warmUp: 20) { $0.voluntarySwitchCount }
      print("follow's threads waited \(Double(waits) / Double(lineCount)) times a line")
      // One wait a line, a little more under load; a thread switch makes it about 2.
      #expect(
        Double(waits) / Double(lineCount) < 1.5,
        "\(waits) waits of follow's threads for \(lineCount) lines")
    }

    /// A line appended to a followed file costs `follow` two read calls: one of inotify,
    /// which a short read shows to be empty, and one `pread` of the file, which reads the
    /// bytes its checkpoint keeps (to tell a truncation) together with the new ones, and whose
    /// short read shows the file's end. `follow` made six: a read of inotify that found
    /// nothing, a `pread` of the checkpoint before and after the file's, and one that found
    /// its end. (The floor, Benchmarks/floor/follow-floor.swift, now reads as `follow` does.)
    @Test func aLineAppendedCostsTwoReadCalls() throws {
      let lineCount = 100
      let reads = try growth(over: lineCount, warmUp: 5) { $0.readCallCount }
      // Two a line; a little more when a write lands while a read is under way.
      #expect(
        Double(reads) / Double(lineCount) < 2.5,
        "\(reads) read calls of follow for \(lineCount) lines")
    }

    /// Starts `follow` on one file and writes `warmUp` lines, then `count` more, each once the
    /// one before it was printed; returns how much `counter` grew over the `count` lines, once
    /// `follow` has exited cleanly on SIGINT.
    private func growth(
      over count: Int, warmUp: Int, of counter: (FollowProcess) -> Int?
    ) throws -> Int {
      let scratch = Scratch()
      defer { scratch.remove() }
      let log = scratch.file("app.log")
      append("start", to: log)
      let follow = try FollowProcess(["app.log"], in: scratch.path)
      #expect(follow.waitForNote("following app.log"))
      let writer = LogWriter(log)
      defer { writer.close() }
      for index in 1...warmUp {
        writer.write("warm-up \(index)")
        try #require(follow.waitForLines(index))
      }
      let before = try #require(counter(follow))
      for index in 1...count {
        writer.write("line \(index)")
        try #require(follow.waitForLines(warmUp + index))
      }
      let grown = try #require(counter(follow)) - before
      follow.send(SIGINT)
      #expect(follow.exitStatus() == 0)
      return grown
    }

    /// Each followed file costs one descriptor: the one its bytes are read through (no
    /// duplicate for the bytes stream, no descriptor for its watch, which is by path).
    @Test func eachFollowedFileHoldsOneDescriptor() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let names = (1...5).map { "app\($0).log" }
      for name in names { append("start", to: scratch.file(name)) }
      let follow = try FollowProcess(names, in: scratch.path)
      #expect(follow.waitForNote("following "))
      append("more", to: scratch.file("app3.log"))
      #expect(follow.wait { stdout, _ in stdout.contains("more") })
      let counts = names.map { follow.descriptorsOpen(on: scratch.file($0)) }
      follow.send(SIGINT)
      #expect(follow.exitStatus() == 0)
      #expect(counts == [1, 1, 1, 1, 1])
    }
  #endif
}
