import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files that live at the followed path for a millisecond (issue 49). Each is opened as the
/// directory's event of its creation is read, when `follow` reads it in time; when it does not
/// (a loaded machine: CI's parallel run, ThreadSanitizer), the file has been renamed away by
/// then, and the rename's event names where it went, which `follow` opens instead. So no file
/// is lost however late the events are read. (Until the rename's destination was read, this
/// test lost the first file under load, and ran alone, gated behind `TIMING_TESTS=1`.)
@Suite struct FollowBriefFileTests {
  /// The path is missing when `follow` starts; then, five times, a file is created there,
  /// written one line and renamed away 1 ms later; then a last file stays. Every line is
  /// printed once, in order. (Before, only the last file's line was: the path was looked at
  /// every 250 ms while it had no file.)
  @Test func filesRenamedAwayAMillisecondAfterTheyAppearAreAllPrinted() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let follow = try FollowProcess(["--rotate-wait", "200ms", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("cannot open app.log: No such file or directory"))
    for file in 0..<5 {
      append("file \(file)", to: log)
      usleep(1_000)
      #expect(rename(log, log + ".\(file)") == 0)
      usleep(50_000)
    }
    append("last", to: log)
    let expected = (0..<5).map { "file \($0)" } + ["last"]
    #expect(follow.waitForLines(expected.count))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == expected)
  }
}
