import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--state FILE`: across its own restart, `follow` prints what was appended while it was down,
/// rotated-away files first, and loses and doubles nothing; a state it cannot use is a message
/// and a start from the end.
@Suite struct FollowStateTests {
  /// The files recorded for `path` (absolute) in the state file at `state`.
  func recorded(in state: String, for path: String) -> [[String: Any]]? {
    guard let data = FileManager.default.contents(atPath: state),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let paths = json["paths"] as? [String: Any]
    else { return nil }
    return paths[URL(fileURLWithPath: path).standardizedFileURL.path] as? [[String: Any]]
  }

  /// The offset recorded for the current file of `path`.
  func recordedOffset(in state: String, for path: String) -> Int? {
    recorded(in: state, for: path)?.last?["offset"] as? Int
  }

  /// How many times `text` occurs in `notes`.
  func count(_ text: String, in notes: String) -> Int {
    notes.components(separatedBy: text).count - 1
  }

  func size(of path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
  }

  @Test func aRestartAfterSIGTERMWithWritesAndARotationBetweenLosesAndDoublesNothing() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    let writer = LogWriter(log)
    writer.write("before")
    var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("no state file"))
    #expect(follow.waitForNote("following app.log"))
    for number in 1...3 { writer.write("line \(number)") }
    #expect(follow.waitForLines(3))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    var printed = follow.lines
    #expect(recordedOffset(in: state, for: log) == size(of: log))

    // While follow is down: more lines, a rotation, lines into the old file through the
    // writer's descriptor, and a new file.
    writer.write("line 4")
    rename(log, log + ".1")
    writer.write("line 5")
    writer.reopen(log)
    writer.write("line 6")

    follow = try FollowProcess(
      ["--state", state, "--rotate-wait", "500ms", "app.log"], in: scratch.path)
    #expect(follow.waitForLines(3))
    // Standard error is read by a thread of its own: wait for the note, which need not be
    // captured yet when the lines are.
    #expect(follow.waitForNote("reading the rest of \(scratch.path)/app.log.1"))
    writer.write("line 7")
    #expect(follow.waitForLines(4))
    #expect(follow.waitForNote("closed the old file"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    writer.close()
    printed += follow.lines
    #expect(printed == (1...7).map { "line \($0)" })
  }

  @Test func afterSIGKILLLinesAreDoubledOnlyBackToTheLastRecordedPosition() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    append("before", to: log)
    var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    let writer = LogWriter(log)
    for number in 1...5 { writer.write("line \(number)") }
    #expect(follow.waitForLines(5))
    // Recorded while lines flow (at least once a second; the wait is only a deadline: on a
    // loaded machine a 3 s bound here ran out).
    let recordedAll = size(of: log)
    #expect(follow.wait { _, _ in recordedOffset(in: state, for: log) == recordedAll })
    for number in 6...8 { writer.write("line \(number)") }
    #expect(follow.waitForLines(8))
    follow.send(SIGKILL)
    #expect(follow.exitStatus() == nil)
    let offset = try #require(recordedOffset(in: state, for: log))
    writer.write("line 9")
    writer.close()

    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    #expect(follow.waitForLines(1))
    Thread.sleep(forTimeInterval: 0.5)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    // The second run starts exactly at the recorded position: lines after it may be doubled,
    // none before it, and none is lost.
    let content = try String(contentsOfFile: log, encoding: .utf8)
    let expected = String(decoding: Array(content.utf8)[offset...], as: UTF8.self)
      .split(separator: "\n").map(String.init)
    #expect(follow.lines == expected)
    #expect(follow.lines.last == "line 9")
    #expect(offset >= recordedAll)
  }

  @Test func aMissingStateFileIsAMessageAndAStartFromTheEnd() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("old 1", "old 2", to: scratch.file("app.log"))
    let follow = try FollowProcess(["--state", "none/yet.state", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("no state file none/yet.state yet; starting at the end"))
    #expect(follow.waitForNote("following app.log"))
    append("new", to: scratch.file("app.log"))
    #expect(follow.waitForLines(1))
    follow.send(SIGINT)
    // The directory does not exist: the state cannot be written, which the exit status says,
    // and the message says which step failed, naming the temporary file that could not be made
    // (before, "No such file or directory" seemed to be said of the state file itself).
    #expect(follow.exitStatus() == 1)
    #expect(
      follow.errors.contains(
        "cannot write state file none/yet.state: cannot create none/yet.state.tmp-"))
    #expect(follow.lines == ["new"])
  }

  /// A `--state` path where something other than a regular file is (a directory, a pipe) is
  /// refused at the start, exit status 2: it is neither read (a pipe would hold `follow` up for
  /// good), nor moved aside as an unusable state file, nor replaced by one. (Before, a directory
  /// was renamed to `.unusable`; `/dev/null` would have been, as root.)
  @Test(arguments: ["a directory", "a pipe"])
  func aStatePathThatIsNoFileIsRefusedAndLeftAsItIs(kind: String) throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let state = scratch.file("state")
    if kind == "a directory" {
      #expect(mkdir(state, 0o755) == 0)
    } else {
      #expect(mkfifo(state, 0o644) == 0)
    }
    append("old", to: scratch.file("app.log"))
    let follow = try FollowProcess(["--state", "state", "app.log"], in: scratch.path)
    #expect(follow.exitStatus() == 2)
    #expect(follow.errors.contains("state file state is \(kind), not a file"))
    #expect(!FileManager.default.fileExists(atPath: state + ".unusable"))
    var info = stat()
    #expect(stat(state, &info) == 0)
    #expect(info.st_mode & S_IFMT == (kind == "a directory" ? S_IFDIR : S_IFIFO))
    #expect(follow.lines == [])
  }

  @Test(arguments: [
    ("not json at all", "is not a follow state file"),
    ("{\"format\": \"follow state 1\", \"machine\": \"x\"}", "is not a follow state file"),
    (
      "{\"format\": \"follow state 99\", \"machine\": \"x\", \"paths\": {}}",
      "has format 'follow state 99'"
    ),
    (
      "{\"format\": \"follow state 1\", \"machine\": \"another machine\", \"paths\": {}}",
      "was written on another machine (another machine)"
    ),
  ])
  func anUnusableStateFileIsAMessageAndAStartFromTheEnd(content: String, message: String) throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let state = scratch.file("follow.state")
    #expect(FileManager.default.createFile(atPath: state, contents: Data(content.utf8)))
    append("old 1", "old 2", to: scratch.file("app.log"))
    let follow = try FollowProcess(["--state", "follow.state", "app.log"], in: scratch.path)
    #expect(follow.waitForNote(message))
    #expect(follow.waitForNote("starting at the end of each file"))
    #expect(follow.waitForNote("moved to follow.state.unusable"))
    #expect(follow.waitForNote("following app.log"))
    append("new", to: scratch.file("app.log"))
    #expect(follow.waitForLines(1))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["new"])
    // The unusable file is kept aside, and a good state is written in its place.
    #expect(FileManager.default.contents(atPath: state + ".unusable") == Data(content.utf8))
    #expect(
      recordedOffset(in: state, for: scratch.file("app.log")) == size(of: scratch.file("app.log")))
  }

  @Test func aFileTruncatedOrRewrittenWhileStoppedIsReadFromItsStart() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    append("start", to: log)
    var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    append("old 1", "old 2", to: log)
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)

    // copytruncate while down, and a fast writer: longer than before already.
    truncate(log, 0)
    append("new 1, longer than everything before it", "new 2", to: log)
    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForLines(2))
    #expect(follow.waitForNote("rewritten since follow stopped"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["new 1, longer than everything before it", "new 2"])

    // Truncated to less than the recorded position.
    truncate(log, 0)
    append("short", to: log)
    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForLines(1))
    #expect(follow.waitForNote("shorter than when follow stopped"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["short"])
  }

  /// With `--state`, a line whose beginning was read when SIGTERM came is not printed at exit:
  /// the state records where it begins, and the next run prints it whole (before issue 35 it
  /// was printed unfinished at exit, and its end as a line of its own after the restart).
  @Test func anUnfinishedLineAcrossARestartIsPrintedWholeByTheNextRun() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    append("start", to: log)
    var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    let fd = open(log, O_WRONLY | O_APPEND)
    _ = Array("whole\nhal".utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    #expect(follow.waitForLines(1))
    Thread.sleep(forTimeInterval: 0.3)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["whole"])
    #expect(recordedOffset(in: state, for: log) == size(of: log) - 3)

    _ = Array("f\nnext\n".utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForLines(2))
    Thread.sleep(forTimeInterval: 0.3)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["half", "next"])
  }

  /// A restart in a rotation's window: the log renamed away while `follow` was down, the new
  /// one not made yet. The rest of the old file is printed, the missing name is awaited, and
  /// the new file is printed from its start once the writer makes it (before issue 35, `follow`
  /// exited with status 2 and stayed down until the next restart).
  @Test func aRestartInARotationsWindowAwaitsTheNewFile() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    let writer = LogWriter(log)
    var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    writer.write("1")
    #expect(follow.waitForLines(1))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)

    rename(log, log + ".1")
    writer.write("2")  // still into the old file
    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForLines(1))
    #expect(follow.waitForNote("cannot open app.log: No such file or directory"))
    writer.reopen(log)
    writer.write("3")
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    writer.close()
    #expect(follow.lines == ["2", "3"])
  }

  /// A file deleted a moment before SIGTERM holds lines that only `follow`'s descriptor can
  /// still read: they are read and printed before it exits (before issue 35 they were lost).
  @Test func linesOfAFileDeletedJustBeforeSIGTERMArePrintedBeforeExit() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    let writer = LogWriter(log)
    let follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    writer.write("first")
    #expect(follow.waitForLines(1))
    unlink(log)
    // Many lines at once, and the signal right after: they wait in the file, not yet read.
    for number in 1...2000 { writer.write("line \(number)") }
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    writer.close()
    #expect(follow.lines == ["first"] + (1...2000).map { "line \($0)" })
  }

  /// Files that wait their turn when SIGTERM comes (after a restart, the rotated-away files
  /// are read one after the other, and the file at the path after them) are read before exit
  /// too, in their order: the file at the path, deleted meanwhile, can be read by this run only.
  /// Before, the drain read only the files already started, and stopped once they were read:
  /// the lines of the deleted file were lost (what the long storm of issue 32 saw once in seven
  /// runs: about 1.5 s of one log, the lines written to it from the run before until its
  /// deletion in a short run).
  @Test func filesWaitingTheirTurnAtSIGTERMAreReadBeforeExit() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    let arguments = ["--state", state, "--rotate-wait", "60s", "app.log"]
    append("first", to: log)
    var follow = try FollowProcess(arguments, in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    // Two rotations while it runs: two rotated-away files, kept open (and recorded) for 60 s.
    for number in 1...2 {
      rename(log, log + ".\(number)")
      #expect(follow.wait { _, errors in count("reading the old file", in: errors) == number })
      append("file \(number + 1)", to: log)
      #expect(
        follow.wait { _, errors in
          count("following the new file", in: errors) + count("has appeared", in: errors)
            == number
        })
    }
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    var printed = follow.lines
    #expect(printed == ["file 2", "file 3"])

    // While it is down: far more than a pipe holds in each rotated-away file, and lines in
    // the file at the path.
    let old = (1...2).map { file in (1...5_000).map { "old \(file) line \($0) of five thousand" } }
    for file in 1...2 {
      let writer = LogWriter(log + ".\(file)")
      for line in old[file - 1] { writer.write(line) }
      writer.close()
    }
    append("new 1", "new 2", "new 3", to: log)

    // The restart reads app.log.1, then app.log.2, then app.log. Its output is not read, so
    // the first file's reading stalls once the pipe is full, and the others wait for it.
    follow = try FollowProcess(arguments, in: scratch.path, outputPaused: true)
    #expect(follow.waitForNote("following app.log"))
    unlink(log)
    follow.send(SIGTERM)
    // Time for the signal to reach the main actor, ahead of the rest of the first file (it
    // comes through the main queue; the first file's reading waits for the pipe).
    Thread.sleep(forTimeInterval: 0.5)
    follow.resumeOutput()
    #expect(follow.exitStatus() == 0)
    printed += follow.lines
    let expected = ["file 2", "file 3"] + old[0] + old[1] + ["new 1", "new 2", "new 3"]
    // Compared without printing ten thousand lines when they differ.
    #expect(printed.count == expected.count)
    #expect(printed.suffix(3) == ["new 1", "new 2", "new 3"])
    #expect(printed.elementsEqual(expected))
  }

  /// A state recorded for a file that was deleted while `follow` was stopped, whose inode
  /// another file beside it then took: that file is not taken for the old one. With device
  /// and inode alone it was: "shorter than when follow stopped (truncated meanwhile)", and its
  /// lines printed as the log's (what the storm of issue 35 saw, with 8 logs in a directory).
  #if os(Linux)
    @Test func anotherFileOnTheInodeOfAFileDeletedWhileStoppedIsNotTakenForIt() throws {
      let scratch = Scratch()
      defer { scratch.remove() }
      let log = scratch.file("app.log")
      let state = scratch.file("follow.state")
      append("old 1", "old 2", "old 3", to: log)
      var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
      #expect(follow.waitForNote("following app.log"))
      follow.send(SIGTERM)
      #expect(follow.exitStatus() == 0)
      var old = stat()
      stat(log, &old)
      // Delete it and make files until one takes its inode (ext4 gives it back at once).
      unlink(log)
      var reused = false
      for attempt in 0..<50 where !reused {
        let name = scratch.file("other-\(attempt).log")
        append("other", to: name)
        var info = stat()
        stat(name, &info)
        reused = info.st_ino == old.st_ino
      }
      try #require(reused, "no new file took the inode here")
      append("new 1", "new 2", to: log)
      follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
      #expect(follow.waitForLines(2))
      Thread.sleep(forTimeInterval: 0.3)
      follow.send(SIGTERM)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == ["new 1", "new 2"])
      #expect(!follow.errors.contains("truncated meanwhile"), "\(follow.errors)")
      #expect(follow.errors.contains("is gone from its directory"), "\(follow.errors)")
    }
  #endif

  @Test func aNewPathIsStartedAtItsEndAndOtherPathsAreKept() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let state = scratch.file("follow.state")
    append("a", to: scratch.file("a.log"))
    append("b", to: scratch.file("b.log"))
    var follow = try FollowProcess(["--state", state, "a.log"], in: scratch.path)
    #expect(follow.waitForNote("following a.log"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    follow = try FollowProcess(["--state", state, "b.log"], in: scratch.path)
    #expect(follow.waitForNote("b.log: not in the state file; starting at its end"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines.isEmpty)
    #expect(recorded(in: state, for: scratch.file("a.log"))?.count == 1)
    #expect(recorded(in: state, for: scratch.file("b.log"))?.count == 1)
  }
}
