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
    #expect(follow.errors.contains("reading the rest of \(scratch.path)/app.log.1"))
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
    // Recorded within a second while lines flow.
    let recordedAll = size(of: log)
    #expect(follow.wait(seconds: 3) { _, _ in recordedOffset(in: state, for: log) == recordedAll })
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
    // The directory does not exist: the state cannot be written, which the exit status says.
    #expect(follow.exitStatus() == 1)
    #expect(follow.errors.contains("cannot write state file none/yet.state"))
    #expect(follow.lines == ["new"])
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
    #expect(follow.errors.contains("rewritten since follow stopped"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["new 1, longer than everything before it", "new 2"])

    // Truncated to less than the recorded position.
    truncate(log, 0)
    append("short", to: log)
    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForLines(1))
    #expect(follow.errors.contains("shorter than when follow stopped"))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["short"])
  }

  @Test func anUnfinishedLineAcrossARestartIsNeitherLostNorDoubled() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let state = scratch.file("follow.state")
    append("start", to: log)
    var follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    let fd = open(log, O_WRONLY | O_APPEND)
    _ = Array("half".utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    Thread.sleep(forTimeInterval: 0.5)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["half"])

    _ = Array("\nwhole\n".utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    follow = try FollowProcess(["--state", state, "app.log"], in: scratch.path)
    #expect(follow.waitForLines(1))
    Thread.sleep(forTimeInterval: 0.5)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["whole"])
  }

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
