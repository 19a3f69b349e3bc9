import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `follow` program, run as a user runs it: a child process, files written beside it,
/// signals sent to it, and what it printed and its exit status checked.
@Suite struct FollowTests {
  @Test func printsAppendedLinesOfSeveralFilesWithTheirNamesAndSummarisesOnInterrupt() throws {
    let (scratch, follow) = try followingTwoLogs()
    defer { scratch.remove() }
    append("a1", "a2", to: scratch.file("a.log"))
    #expect(follow.waitForLines(2))
    append("b1", to: scratch.file("b.log"))
    #expect(follow.waitForLines(3))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["a.log: a1", "a.log: a2", "b.log: b1"])
    #expect(follow.errors.contains("stopped by SIGINT: 2 lines from a.log, 1 line from b.log"))
  }

  /// With several files, runs of plain lines are labelled as their bytes are copied out, and
  /// the other lines (not ASCII, or with a carriage return) as `String`s: both in order, each
  /// after its file's name, within one chunk and across two.
  @Test func labelledLinesOfPlainTextAndOthersKeepTheirOrder() throws {
    let (scratch, follow) = try followingTwoLogs()
    defer { scratch.remove() }
    append("one", "two", "café", "three", "crlf\r", "four", "", "five", to: scratch.file("a.log"))
    #expect(follow.waitForLines(8))
    append("six", "é", to: scratch.file("b.log"))
    #expect(follow.waitForLines(10))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(
      follow.lines == [
        "a.log: one", "a.log: two", "a.log: café", "a.log: three", "a.log: crlf", "a.log: four",
        "a.log: ", "a.log: five", "b.log: six", "b.log: é",
      ])
  }

  @Test func aWriterHoldingItsDescriptorAcrossARenameLosesNoLine() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let writer = LogWriter(log)
    let follow = try FollowProcess(["--rotate-wait", "1s", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    writer.write("1")
    #expect(follow.waitForLines(1))
    rename(log, log + ".1")
    writer.write("2")  // still into the old file
    append("new 1", to: log)  // the new file appears
    #expect(follow.waitForNote("following the new file"))
    writer.write("3")  // the writer has not reopened yet
    writer.reopen(log)
    writer.write("new 2")
    #expect(follow.waitForLines(5))
    #expect(follow.waitForNote("closed the old file"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    writer.close()
    let lines = follow.lines
    #expect(lines.sorted() == ["1", "2", "3", "new 1", "new 2"])
    // Order within each file is kept.
    #expect(lines.filter { !$0.hasPrefix("new") } == ["1", "2", "3"])
    #expect(lines.filter { $0.hasPrefix("new") } == ["new 1", "new 2"])
    #expect(follow.errors.contains("5 lines from app.log"))
  }

  /// A burst of changes that `follow` takes in at once, as on a loaded machine: its file renamed
  /// away, a second file made and deleted, and a third made, all while `follow` is held
  /// (SIGSTOP). The deletion is of a file that `follow` never opened: the third file, at the path
  /// when `follow` looks, is followed once, and each of its lines printed once.
  @Test func aBurstOfChangesTakenInAtOnceFollowsTheFileAtThePathOnce() throws {
    let (scratch, log, follow) = try followingAnEmptyLog(rotateWait: "500ms")
    defer { scratch.remove() }
    append("first", to: log)
    #expect(follow.waitForLines(1))
    follow.send(SIGSTOP)
    rename(log, log + ".1")
    append("second", to: log)
    unlink(log)
    append("third 1", "third 2", to: log)
    follow.send(SIGCONT)
    #expect(follow.waitForLines(3))
    #expect(follow.waitForNote("closed the old file"))
    append("third 3", to: log)
    #expect(follow.waitForLines(4))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    // The second file was gone before `follow` could look: nothing could read it.
    #expect(follow.lines == ["first", "third 1", "third 2", "third 3"])
  }

  /// Files that came and went at the path while `follow` was held (SIGSTOP), each renamed away
  /// before `follow` took in its creation (issue 49): each is read where its rename put it,
  /// after the file rotated away before it and before the file at the path, so every line is
  /// printed once and in order. Before, only the first and the last file were read: the watch
  /// reported the first creation it took in as the file at the path by then.
  @Test func filesRenamedAwayBeforeFollowTookInTheirCreationAreReadWhereTheyWent() throws {
    let (scratch, log, follow) = try followingAnEmptyLog(rotateWait: "500ms")
    defer { scratch.remove() }
    append("first", to: log)
    #expect(follow.waitForLines(1))
    follow.send(SIGSTOP)
    for (index, line) in ["second", "third", "fourth"].enumerated() {
      rename(log, log + ".\(index + 1)")
      append(line, to: log)
    }
    follow.send(SIGCONT)
    #expect(follow.waitForLines(4))
    append("fourth 2", to: log)
    #expect(follow.waitForLines(5))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["first", "second", "third", "fourth", "fourth 2"])
  }

  /// A file that leaves the path while `follow` takes in its creation: `follow` read the
  /// creation, and the file at the path when it opened it was already the next one (its `open`
  /// is held here, by a library preloaded into it, while the test renames the file away and
  /// makes the next). The file that left is read where its rename put it, after the lines of
  /// the file at the path (late, as nothing else can be once the next file is printed). Before,
  /// it was never read: its rename came while the file at the path was the one read.
  #if os(Linux)
    @Test(.enabled(if: OpenHolder.canBuild))
    func aFileThatLeftWhileFollowOpenedThePathIsReadWhereItWent() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let log = scratch.file("app.log")
      append(to: log)
      let holder = try OpenHolder(of: "app.log", in: scratch)
      let follow = try FollowProcess(
        ["--rotate-wait", "500ms", "app.log"], in: scratch.path, launcher: holder.launcher)
      #expect(follow.waitForNote("following app.log"))
      append("first", to: log)
      #expect(follow.waitForLines(1))
      holder.arm()
      rename(log, log + ".0")
      append("second", to: log)
      #expect(holder.waitUntilHeld(), "follow did not open the new file")
      rename(log, log + ".1")
      append("third", to: log)
      holder.release()
      #expect(follow.waitForLines(3))
      follow.send(SIGTERM)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == ["first", "third", "second"])
      #expect(
        follow.errors.contains("a file that was there briefly was renamed before it was read"))
    }
  #endif

  /// More changes than the system queues for a process (inotify's `max_queued_events`, 16,384
  /// by default) while `follow` is held (SIGSTOP): the system drops the rest and says so. The
  /// rotation among the dropped changes is still seen: each watch looks at its path again.
  #if os(Linux)
    @Test func changesDroppedByTheSystemStillRotateToTheNewFile() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let (a, b) = (scratch.file("a.log"), scratch.file("b.log"))
      append(to: a)
      append(to: b)
      let follow = try FollowProcess(["a.log", "b.log"], in: scratch.path)
      #expect(follow.waitForNote("following a.log, b.log"))
      let queued =
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
      follow.send(SIGSTOP)
      // Changes to the two files in turn, which the system cannot merge: more than it queues.
      let writers = (LogWriter(a), LogWriter(b))
      for index in 0..<(queued / 2 + 100) {
        writers.0.write("a \(index)")
        writers.1.write("b \(index)")
      }
      writers.0.close()
      writers.1.close()
      rename(a, a + ".1")
      append("new a", to: a)
      follow.send(SIGCONT)
      let count = 2 * (queued / 2 + 100) + 1
      #expect(follow.waitForLines(count))
      follow.send(SIGTERM)
      #expect(follow.exitStatus() == 0)
      let lines = follow.lines
      #expect(lines.count == count)
      let printedTheNewFile = lines.contains("a.log: new a")
      #expect(printedTheNewFile, "the new a.log was not followed")
    }
  #endif

  /// Files that come and go at the path while `follow`'s main actor is held (its output is not
  /// read, so its writes wait, as they do for a slow reader of a pipe): the file made by one
  /// rotation and renamed away by the next, before `follow` takes in either, is read all the
  /// same, each file's lines once and in order.
  @Test func aFileThatCameAndWentWhileFollowWasBusyIsReadAllTheSame() throws {
    let (scratch, log, follow) = try followingAnEmptyLog(rotateWait: "500ms")
    defer { scratch.remove() }
    // More than a pipe holds, unread: `follow` waits in its write to standard output.
    follow.pauseOutput()
    let filler = (0..<3000).map { "filler \($0) " + String(repeating: "x", count: 60) }
    append(filler, to: log)
    Thread.sleep(forTimeInterval: 0.5)
    rename(log, log + ".1")
    append("second 1", "second 2", to: log)
    Thread.sleep(forTimeInterval: 0.3)
    rename(log, log + ".2")
    append("third 1", to: log)
    Thread.sleep(forTimeInterval: 0.3)
    follow.resumeOutput()
    #expect(follow.waitForLines(3003))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    let lines = follow.lines
    #expect(lines.count == 3003)
    #expect(Array(lines.prefix(3000)) == filler)
    #expect(lines.suffix(3) == ["second 1", "second 2", "third 1"])
  }

  /// A file renamed away and back (`mv app.log x; mv x app.log`) is read on where it was, not
  /// opened a second time from its start beside the reading of it as a rotated-away file.
  @Test func aFileMovedAwayAndBackIsReadOnOnce() throws {
    let (scratch, log, follow) = try followingAnEmptyLog(rotateWait: "2s")
    defer { scratch.remove() }
    append("1", to: log)
    #expect(follow.waitForLines(1))
    rename(log, log + ".away")
    #expect(follow.waitForNote("renamed; reading the old file"))
    append("2", to: log + ".away")
    #expect(follow.waitForLines(2))
    rename(log + ".away", log)
    #expect(follow.waitForNote("the old file is back at the path"))
    append("3", to: log)
    #expect(follow.waitForLines(3))
    // Past the rotate wait: the file is not closed as a quiet rotated-away one.
    Thread.sleep(forTimeInterval: 2.5)
    append("4", to: log)
    #expect(follow.waitForLines(4))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["1", "2", "3", "4"])
    #expect(!follow.errors.contains("closed the old file"))
  }

  @Test func aFileDeletedWhileWrittenIsReadUntilQuietThenThePathIsAwaited() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let writer = LogWriter(log)
    let follow = try FollowProcess(["--rotate-wait", "500ms", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    unlink(log)
    #expect(follow.waitForNote("deleted; reading the old file"))
    writer.write("after delete")
    #expect(follow.waitForLines(1))
    #expect(follow.waitForNote("closed the old file"))
    append("reborn", to: log)
    #expect(follow.waitForLines(2))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    writer.close()
    #expect(follow.lines == ["after delete", "reborn"])
  }

  /// The log's directory is removed with the log in it, and made again, with a new log, while
  /// follow still reads the old one (which delays the system's report of the removal): the new
  /// log is followed from its first line, as `tail -F` does.
  #if os(Linux)
    @Test func aDirectoryRemovedAndMadeAgainLosesNoLine() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let logs = scratch.file("logs")
      mkdir(logs, 0o755)
      append("before", to: logs + "/app.log")
      let follow = try FollowProcess(["-n", "1", "logs/app.log"], in: scratch.path)
      #expect(follow.waitForLines(1))
      try FileManager.default.removeItem(atPath: logs)
      #expect(follow.waitForNote("deleted; reading the old file"))
      mkdir(logs, 0o755)
      append("after", to: logs + "/app.log")
      #expect(follow.waitForLines(2))
      append("later", to: logs + "/app.log")
      #expect(follow.waitForLines(3))
      follow.send(SIGINT)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == ["before", "after", "later"])
    }
  #endif

  /// A writer that wrote many lines to the old file after a rotation, then moved to the new
  /// file: the old file is read to its end before anything of the new file is printed, so the
  /// log's lines come out in the order written (before issue 35, the new file's first line
  /// came out before the old file's last ones: `[5479, 5480, 5484, 5481, 5482, 5483]`).
  @Test func aRotatedAwayFileIsReadToItsEndBeforeTheNewFileIsPrinted() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let writer = LogWriter(log)
    let follow = try FollowProcess(["--rotate-wait", "1s", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    writer.write("0")
    #expect(follow.waitForLines(1))
    rename(log, log + ".1")
    let count = 20_000
    for number in 1...count { writer.write("\(number)") }
    writer.reopen(log)
    writer.write("\(count + 1)")
    writer.write("\(count + 2)")
    #expect(follow.waitForLines(count + 3))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    writer.close()
    let lines = follow.lines
    #expect(lines.count == count + 3)
    let outOfOrder = zip(lines, lines.dropFirst()).first { Int($0)! + 1 != Int($1)! }
    #expect(outOfOrder == nil, "\(String(describing: outOfOrder))")
  }

  @Test func aRotateWaitOfZeroSwitchesAtOnceLikeTailF() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let writer = LogWriter(log)
    let follow = try FollowProcess(["--rotate-wait", "0s", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    writer.write("old 1")
    #expect(follow.waitForLines(1))
    rename(log, log + ".1")
    #expect(follow.waitForNote("renamed; closed the old file"))
    writer.write("old 2")  // into the renamed file, which is no longer read
    append("new 1", to: log)
    #expect(follow.waitForLines(2))
    Thread.sleep(forTimeInterval: 0.2)
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    writer.close()
    #expect(follow.lines == ["old 1", "new 1"])
  }

  @Test func aFileTruncatedInPlaceIsReadAgainFromItsStart() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("one", "two", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    append("three", to: log)
    #expect(follow.waitForLines(1))
    truncate(log, 0)
    #expect(follow.waitForNote("file truncated"))
    append("again", to: log)
    #expect(follow.waitForLines(2))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["three", "again"])
  }

  /// copytruncate with a fast writer: emptied and written past the old position at once,
  /// before `follow` can look. `tail -F` prints all 8 lines when it wakes up in between;
  /// `follow` must print them all whenever it wakes up.
  @Test func aFileTruncatedAndRewrittenAtOnceLosesNoLine() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("line 1", "line 2", "line 3", "line 4", "line 5", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    let fd = open(log, O_WRONLY | O_APPEND)
    ftruncate(fd, 0)
    let rewritten = (1...8).map { "line \($0), this file grows past the old offset\n" }.joined()
    _ = Array(rewritten.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    #expect(follow.waitForLines(8))
    #expect(follow.waitForNote("truncated"))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == (1...8).map { "line \($0), this file grows past the old offset" })
  }

  @Test func manyRotationsLeaveTheDescriptorCountWhereItWas() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["--rotate-wait", "0s", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    // Warm up first, so that what the first rotations allocate for good is not counted.
    for rotation in 1...20 {
      rename(log, log + ".1")
      append("line \(rotation)", to: log)
      #expect(follow.waitForLines(rotation))
    }
    let before = follow.openDescriptorCount
    // Three windows of 100 rotations, each with the growth of the program's resident memory
    // across it. A leak of a few kilobytes per rotation grows every window; what a loaded
    // machine adds once (seen: 1,120 KB over 200 rotations during a parallel test run, when
    // Dispatch started threads and malloc gave them arenas) grows one.
    var growths: [Int] = []
    for window in 0..<3 {
      let memoryBefore = follow.residentKilobytes
      #expect(memoryBefore > 0)
      for rotation in (21 + window * 100)...(120 + window * 100) {
        rename(log, log + ".1")
        append("line \(rotation)", to: log)
        #expect(follow.waitForLines(rotation))
      }
      growths.append(follow.residentKilobytes - memoryBefore)
    }
    // Back where it was (or below: a descriptor of the last warm-up rotation may still have
    // been closing when `before` was counted). A leak of one per rotation would be 300 more.
    #expect(follow.wait { _, _ in follow.openDescriptorCount <= before })
    // Flat: 100 rotations may not keep more than a few pages each way, in at least one window.
    // (Not under a sanitizer, whose runtime keeps memory of its own: the program is built the
    // way the tests are.)
    if !TestProcess.isSanitized {
      #expect(growths.min()! < 512, "resident kilobytes gained per 100 rotations: \(growths)")
    }
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == (1...320).map { "line \($0)" })
  }

  @Test func hangupReopensAndKeepsFollowing() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    follow.send(SIGHUP)
    #expect(follow.waitForNote("SIGHUP: reopening"))
    append("still here", to: log)
    #expect(follow.waitForLines(1))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["still here"])
  }

  #if os(Linux)
    /// `follow` takes its signals whatever mask it started with: none blocked (as a shell
    /// started from a terminal starts it: its main loop waits with `epoll_wait`), or all of
    /// them (as a child of a Dispatch thread starts, such as this test's: the loop unblocks
    /// them as it waits, with `epoll_pwait`). Each launcher's effect was seen with `strace`
    /// when this test was written. (The empty mask needs Perl, as Debian's perl-base has it.)
    @Test(
      arguments: FileManager.default.isExecutableFile(atPath: "/usr/bin/perl")
        ? [false, true] : [true])
    func stopsAtTermWhateverSignalsItStartedWithBlocked(blocked: Bool) throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let log = scratch.file("app.log")
      append("start", to: log)
      let unblocking = "use POSIX; sigprocmask(SIG_SETMASK, POSIX::SigSet->new); exec @ARGV"
      let launcher =
        blocked
        ? ["/usr/bin/env", "--block-signal"] : ["/usr/bin/perl", "-e", unblocking]
      let follow = try FollowProcess(["app.log"], in: scratch.path, launcher: launcher)
      #expect(follow.waitForNote("following app.log"))
      append("one", to: log)
      #expect(follow.waitForLines(1))
      follow.send(SIGHUP)
      #expect(follow.waitForNote("SIGHUP: reopening"))
      append("two", to: log)
      #expect(follow.waitForLines(2))
      follow.send(SIGTERM)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == ["one", "two"])
      #expect(follow.errors.contains("stopped by SIGTERM: 2 lines from app.log"))
    }
  #endif

  #if os(Linux)
    /// A named pipe at the path is read across its writers, as `tail -F` reads it: a writer
    /// that closes it does not end it, and the next writer's lines are printed too. Opening it
    /// waits for no writer, so `follow` says at once that it follows it, and the main thread
    /// is never held in `open`; it stops at once, with no end to read to. (Before, the open
    /// waited for a writer, the first writer's close ended the pipe's stream and closed it, the
    /// next writer found no reader, and a stop waited for the pipe's end until its limit.)
    @Test func aNamedPipeIsReadAcrossItsWriters() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let pipe = scratch.file("pipe")
      #expect(mkfifo(pipe, 0o644) == 0)
      let follow = try FollowProcess(["pipe"], in: scratch.path)
      #expect(follow.waitForNote("following pipe"))
      for (count, line) in ["first", "second"].enumerated() {
        // A writer that does not wait: with no reader, the open fails (ENXIO).
        let fd = open(pipe, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(fd >= 0, "no reader has the pipe open for the writer of '\(line)'")
        guard fd >= 0 else { break }
        let bytes = Array("\(line)\n".utf8)
        #expect(write(fd, bytes, bytes.count) == bytes.count)
        close(fd)
        #expect(follow.waitForLines(count + 1))
      }
      follow.send(SIGTERM)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == ["first", "second"])
      #expect(follow.errors.contains("stopped by SIGTERM: 2 lines from pipe"))
      // A pipe has no end to read to before stopping: the stop does not wait for one.
      #expect(!follow.errors.contains("not every file was read to its end"))
    }
  #endif

  /// A chunk of plain lines goes out as its bytes, and a chunk with a CR, text beyond ASCII or
  /// an unfinished line is split as the lines stream splits it: labelled alike, in order.
  @Test func plainChunksAndOtherChunksOfSeveralFilesComeOutAsTheLinesStreamReadsThem() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    for name in ["a.log", "b.log"] { append("start", to: scratch.file(name)) }
    let follow = try FollowProcess(["a.log", "b.log"], in: scratch.path)
    #expect(follow.waitForNote("following a.log, b.log"))
    func write(_ text: String, to name: String) {
      let fd = open(scratch.file(name), O_WRONLY | O_APPEND)
      _ = Array(text.utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
    write("plain 1\nplain 2\n", to: "a.log")
    #expect(follow.waitForLines(2))
    write("with CR\r\ncafé\nplain 3\nhalf", to: "a.log")
    #expect(follow.waitForLines(5))
    write(" done\nplain 4\n", to: "a.log")
    #expect(follow.waitForLines(7))
    write("b plain\n", to: "b.log")
    #expect(follow.waitForLines(8))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(
      follow.lines == [
        "a.log: plain 1", "a.log: plain 2", "a.log: with CR", "a.log: café", "a.log: plain 3",
        "a.log: half done", "a.log: plain 4", "b.log: b plain",
      ])
  }

  @Test func binaryDataIsPrintedWithoutStoppingTheProgram() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    let fd = open(log, O_WRONLY | O_APPEND)
    let bytes: [UInt8] = [0x00, 0xFF, 0xFE, 0x0A, 0x80, 0x41, 0x0A]
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    append("text", to: log)
    #expect(follow.waitForLines(3))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["\u{0}\u{FFFD}\u{FFFD}", "\u{FFFD}A", "text"])
  }

  @Test(arguments: [
    (["--bogus"], "follow: unknown option '--bogus'\nTry 'follow --help' for more information.\n"),
    (["--heartbeat", "soon"], "option '--heartbeat': 'soon' is not a duration"),
  ])
  func badUsageIsAClearMessageAndExitStatusTwo(arguments: [String], message: String) throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let follow = try FollowProcess(arguments, in: scratch.path)
    #expect(follow.exitStatus() == 2)
    #expect(follow.errors.contains(message))
  }

  /// A file that exists but cannot be opened for reading. Tests run as root here, for whom no
  /// permission bit makes a file unreadable; a Unix-domain socket's file cannot be opened by
  /// anyone (ENXIO on Linux, EOPNOTSUPP on Apple platforms).
  @Test func aFileThatCannotBeOpenedIsAClearMessageAndExitStatusTwo() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    makeSocketFile(at: scratch.file("app.sock"))
    let follow = try FollowProcess(["app.sock"], in: scratch.path)
    #expect(follow.exitStatus() == 2)
    #expect(follow.errors.contains("follow: cannot open app.sock: "), "\(follow.errors)")
  }

  /// A file its user may not read. Tests run as root here, for whom permission bits do not
  /// count, so `follow` then runs as the user nobody, through `setpriv`.
  @Test(.enabled(if: getuid() != 0 || canRunAsNobody, "needs a user that permissions apply to"))
  func aFileWithoutReadPermissionIsAClearMessageAndExitStatusTwo() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("secret", to: scratch.file("app.log"))
    chmod(scratch.file("app.log"), 0o200)
    let follow = try FollowProcess(
      ["app.log"], in: scratch.path, launcher: getuid() == 0 ? asNobody : [])
    #expect(follow.exitStatus() == 2)
    #expect(follow.errors.contains("app.log: Permission denied"), "\(follow.errors)")
  }

  #if os(Linux)
    /// A followed file is read without a write-back of its access time: under `relatime`, the
    /// default, each read of a file written since the last one otherwise stamps its inode, a
    /// disk write at each line of a log.
    @Test(.enabled(if: readsUpdateAccessTime, "needs a file system that records reads"))
    func readingAFollowedFileLeavesItsAccessTimeAsItWas() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let log = scratch.file("app.log")
      append("before", to: log)
      setAccessTime(of: log, to: 1_000_000_000)
      try followPrintsALineAppended(to: scratch)
      #expect(accessTime(of: log) == 1_000_000_000)
    }

    /// Where the system refuses to leave the access time as it was (`follow`'s user does not own
    /// the file, so `O_NOATIME` is `EPERM`), the file is read all the same. Tests run as root
    /// here, so `follow` runs as the user nobody, through `setpriv`, on a file of root's.
    @Test(.enabled(if: canRunAsNobody, "needs a user that does not own the file"))
    func aFileOfAnotherUserIsReadAllTheSame() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      chmod(scratch.path, 0o755)
      let log = scratch.file("app.log")
      append("before", to: log)
      chmod(log, 0o644)
      try followPrintsALineAppended(to: scratch, launcher: asNobody)
    }
  #endif

  @Test func helpExplainsUsage() throws {
    let follow = try FollowProcess(["--help"])
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines.first?.hasPrefix("usage: follow") == true)
  }

  @Test func theDemoRotatesItsOwnLogAndLosesNoLine() throws {
    let follow = try FollowProcess([])
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == (1...16).map { "demo line \($0)" })
    #expect(follow.errors.contains("all 16 lines arrived once and in order"))
  }

  /// A demo held for a moment (SIGSTOP), as a loaded machine holds it: its timer's fires are
  /// merged into one tick, and the writer still writes every numbered line once.
  @Test func theDemoHeldForAMomentStillWritesEveryLine() throws {
    let follow = try FollowProcess([])
    #expect(follow.waitForLines(2))
    follow.send(SIGSTOP)
    Thread.sleep(forTimeInterval: 0.6)
    follow.send(SIGCONT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == (1...16).map { "demo line \($0)" })
  }

  @Test func theHeartbeatSaysOnStandardErrorWhenNothingArrived() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("start", to: scratch.file("app.log"))
    let follow = try FollowProcess(["--heartbeat", "100ms", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("follow: idle: no line for 100ms"))
    append("a line", to: scratch.file("app.log"))
    #expect(follow.waitForLines(1))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    // Standard output carries the lines alone.
    #expect(follow.lines == ["a line"])
  }
}

/// A scratch directory with `a.log` and `b.log`, a line in each, and `follow` following both,
/// once it says so.
private func followingTwoLogs() throws -> (Scratch, FollowProcess) {
  let scratch = Scratch()
  append("before", to: scratch.file("a.log"))
  append("before", to: scratch.file("b.log"))
  let follow = try FollowProcess(["a.log", "b.log"], in: scratch.path)
  #expect(follow.waitForNote("following a.log, b.log"))
  return (scratch, follow)
}

/// A scratch directory with an empty `app.log`, and `follow` following it with `--rotate-wait
/// rotateWait`, once it says so.
private func followingAnEmptyLog(
  rotateWait: String
) throws -> (Scratch, log: String, FollowProcess) {
  let scratch = Scratch()
  let log = scratch.file("app.log")
  append(to: log)
  let follow = try FollowProcess(["--rotate-wait", rotateWait, "app.log"], in: scratch.path)
  #expect(follow.waitForNote("following app.log"))
  return (scratch, log, follow)
}

#if os(Linux)
  /// Holds a program's first `open` of a file named `name` once armed, until released: a
  /// library preloaded into the program (`LD_PRELOAD`), built with the system's C compiler.
  /// The program runs through ``launcher``.
  private struct OpenHolder {
    static let compiler = "/usr/bin/cc"
    static var canBuild: Bool { FileManager.default.isExecutableFile(atPath: compiler) }

    /// The C compiler could not build the library.
    struct BuildFailed: Error {
      let status: Int32
    }

    let launcher: [String]
    private let armed: String
    private let go: String

    init(of name: String, in scratch: Scratch) throws {
      let source = scratch.file("hold-open.c")
      let library = scratch.file("hold-open.so")
      armed = scratch.file("hold-open.armed")
      go = scratch.file("hold-open.go")
      try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
      let build = Process()
      build.executableURL = URL(fileURLWithPath: Self.compiler)
      build.arguments = ["-shared", "-fPIC", "-o", library, source, "-ldl"]
      try build.run()
      build.waitUntilExit()
      guard build.terminationStatus == 0 else { throw BuildFailed(status: build.terminationStatus) }
      launcher = [
        "/usr/bin/env", "LD_PRELOAD=\(library)", "HOLD_OPEN_OF=\(name)", "HOLD_ARMED=\(armed)",
        "HOLD_GO=\(go)", "ASAN_OPTIONS=\(Self.addressSanitizerOptions)",
      ]
    }

    /// This run's address sanitizer options, and the one that lets the sanitizer's runtime load
    /// after a preloaded library (a build with the sanitizer checks that its runtime is first).
    private static var addressSanitizerOptions: String {
      let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] ?? ""
      return (options.isEmpty ? "" : options + ":") + "verify_asan_link_order=0"
    }

    /// Holds the next `open` of the file.
    func arm() { append(to: armed) }

    /// Whether an `open` is held (the library removes the armed mark), within 10 s.
    func waitUntilHeld() -> Bool {
      let deadline = Date().addingTimeInterval(10)
      while access(armed, F_OK) == 0 {
        guard Date() < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.001)
      }
      return true
    }

    /// Lets the held `open` go on.
    func release() { append(to: go) }

    private static let source = """
      #define _GNU_SOURCE
      #include <dlfcn.h>
      #include <fcntl.h>
      #include <stdarg.h>
      #include <stdlib.h>
      #include <string.h>
      #include <unistd.h>
      static int held;
      static void hold(const char *path) {
        const char *name = getenv("HOLD_OPEN_OF"), *armed = getenv("HOLD_ARMED");
        const char *go = getenv("HOLD_GO"), *slash = strrchr(path, '/');
        if (held || !name || !armed || !go || strcmp(slash ? slash + 1 : path, name) != 0) return;
        if (access(armed, F_OK) != 0) return;
        held = 1;
        unlink(armed);
        for (int i = 0; i < 10000 && access(go, F_OK) != 0; i++) usleep(1000);
      }
      #define HOLDING(function) \\
        int function(const char *path, int flags, ...) { \\
          mode_t mode = 0; \\
          if (flags & O_CREAT) { va_list list; va_start(list, flags); mode = (mode_t)va_arg(list, int); va_end(list); } \\
          hold(path); \\
          int (*next)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #function); \\
          return next(path, flags, mode); \\
        }
      HOLDING(open)
      HOLDING(open64)
      """
  }
#endif

#if os(Linux)
  /// Starts `follow app.log` in `scratch` (through `launcher`), appends a line to the file, and
  /// checks that it is printed, alone, and that `follow` stops cleanly on SIGINT.
  private func followPrintsALineAppended(to scratch: Scratch, launcher: [String] = []) throws {
    let follow = try FollowProcess(["app.log"], in: scratch.path, launcher: launcher)
    #expect(follow.waitForNote("following app.log"))
    append("a line", to: scratch.file("app.log"))
    #expect(follow.waitForLines(1))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["a line"])
  }

  /// The access time of the file at `path`, in whole seconds.
  private func accessTime(of path: String) -> Int {
    var info = stat()
    precondition(stat(path, &info) == 0, "stat \(path) failed")
    return info.st_atim.tv_sec
  }

  /// Sets the access time of the file at `path` to `seconds` since 1970, its modification time
  /// left as it is; so far back that `relatime` stamps the next read.
  private func setAccessTime(of path: String, to seconds: Int) {
    var info = stat()
    precondition(stat(path, &info) == 0, "stat \(path) failed")
    let times = [timespec(tv_sec: seconds, tv_nsec: 0), info.st_mtim]
    precondition(utimensat(AT_FDCWD, path, times, 0) == 0, "utimensat \(path) failed")
  }

  /// Whether a plain read stamps a file's access time where the tests' files are (not on a
  /// file system mounted `noatime`): the condition under which a test of leaving it can fail.
  private let readsUpdateAccessTime: Bool = {
    let scratch = Scratch()
    defer { scratch.remove() }
    let probe = scratch.file("probe")
    append("probe", to: probe)
    setAccessTime(of: probe, to: 1_000_000_000)
    let fd = open(probe, O_RDONLY | O_CLOEXEC)
    var byte: UInt8 = 0
    _ = read(fd, &byte, 1)
    close(fd)
    return accessTime(of: probe) != 1_000_000_000
  }()
#endif
