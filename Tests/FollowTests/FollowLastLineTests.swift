import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A last line with no newline: printed at exit and once its file has been quiet for a second,
/// never twice; its rest, when it comes, is a line of its own.
@Suite struct FollowLastLineTests {
  /// Appends `text` as it is, without a newline.
  func write(_ text: String, to path: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    _ = Array(text.utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }

  @Test func aLastLineWithoutNewlineIsPrintedAtExit() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    write("no newline yet", to: log)
    // Read, but not yet quiet for a second.
    Thread.sleep(forTimeInterval: 0.5)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["no newline yet"])
    #expect(follow.errors.contains("1 line from app.log"))
  }

  @Test func aLineCompletedQuicklyIsPrintedWhole() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    write("half", to: log)
    Thread.sleep(forTimeInterval: 0.2)
    write(" done\n", to: log)
    #expect(follow.waitForLines(1))
    Thread.sleep(forTimeInterval: 1.2)
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["half done"])
  }

  @Test func aQuietUnfinishedLineIsPrintedOnceAndItsRestAsALineOfItsOwn() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    write("progress 50%", to: log)
    #expect(follow.waitForLines(1, seconds: 5))
    write(", 100%\n", to: log)
    #expect(follow.waitForLines(2))
    write("waiting", to: log)
    #expect(follow.waitForLines(3, seconds: 5))
    // Only the newline comes: the line was printed already.
    write("\r\n", to: log)
    append("next", to: log)
    #expect(follow.waitForLines(4))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["progress 50%", ", 100%", "waiting", "next"])
  }
}
