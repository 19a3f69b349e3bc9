import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A last line with no newline is held until its newline comes, however long that takes, so a
/// block-buffered writer's lines come out whole; it is printed unfinished only when nothing more
/// of it can come (at exit, when its rotated-away file is closed, when its file is truncated),
/// and then once.
@Suite struct FollowLastLineTests {
  /// Appends `text` as it is, without a newline.
  func write(_ text: String, to path: String) {
    write(Array(text.utf8), to: path)
  }

  /// Appends `bytes` as they are.
  func write(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    _ = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }

  /// A writer whose standard output is a file writes it in blocks, which cut lines anywhere
  /// (here in the middle of a word and of a two-byte character) and come seconds apart: each
  /// line is printed whole, once its newline has come.
  @Test func aBlockBufferedWritersLinesComeOutWholeWhenBlocksComeSecondsApart() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    let text = Array("alpha-1\nbeta-2\ngamma-3\ndelta-4\ncafé-5\nepsilon-6\n".utf8)
    let gamma = text.firstIndex(of: UInt8(ascii: "m"))! + 1  // "gam|ma-3"
    let accent = text.firstIndex(of: 0xC3)! + 1  // "caf" and the first byte of "é"
    let blocks = [text[..<gamma], text[gamma..<accent], text[accent...]]
    for (index, block) in blocks.enumerated() {
      if index > 0 { Thread.sleep(forTimeInterval: 3) }
      write(Array(block), to: log)
    }
    #expect(follow.waitForLines(6))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["alpha-1", "beta-2", "gamma-3", "delta-4", "café-5", "epsilon-6"])
  }

  /// Characters of two, three and four bytes, written one byte at a time: every cut falls
  /// inside one, and the line comes out whole, with no U+FFFD.
  @Test func multiByteCharactersWrittenOneByteAtATimeComeOutWhole() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    for byte in Array("né€𝄞!\n".utf8) {
      write([byte], to: log)
      Thread.sleep(forTimeInterval: 0.05)
    }
    #expect(follow.waitForLines(1))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["né€𝄞!"])
  }

  @Test func aLastLineWithoutNewlineIsPrintedAtExit() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    write("no newline yet", to: log)
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

  /// Rotated away with an unfinished last line, the old file is read until quiet and closed:
  /// the line is printed then, once, after the new file's lines.
  @Test func anUnfinishedLineOfARotatedAwayFileIsPrintedOnceWhenTheFileIsClosed() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["--rotate-wait", "1s", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    write("last words", to: log)
    Thread.sleep(forTimeInterval: 0.3)
    rename(log, log + ".1")
    append("fresh", to: log)
    #expect(follow.waitForNote("closed the old file"))
    #expect(follow.waitForLines(2))
    // The old file's rest, if it ever came, has nowhere to go: nothing more is printed.
    write(" and more\n", to: log + ".1")
    Thread.sleep(forTimeInterval: 0.5)
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["fresh", "last words"])
  }

  /// Truncated with an unfinished last line, whose end is gone with the old content: the line
  /// is printed, once, before the file's new lines.
  @Test func anUnfinishedLineOfATruncatedFileIsPrintedOnceBeforeItsNewLines() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(["app.log"], in: scratch.path)
    #expect(follow.waitForNote("following app.log"))
    write("cut short", to: log)
    Thread.sleep(forTimeInterval: 0.3)
    truncate(log, 0)
    #expect(follow.waitForNote("truncated"))
    append("new", to: log)
    #expect(follow.waitForLines(2))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["cut short", "new"])
  }
}
