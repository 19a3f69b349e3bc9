import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files that live at the followed path for a millisecond (issue 49): each is opened as the
/// directory's event of its creation is read, not by a later look at the path, so its lines are
/// printed even though it was renamed away before `follow` could look.
@Suite struct FollowBriefFileTests {
  /// The path is missing when `follow` starts; then, five times, a file is created there,
  /// written one line and renamed away 1 ms later; then a last file stays. Every line is
  /// printed once, in order. (Before, only the last file's line was: the path was looked at
  /// every 250 ms while it had no file.)
  ///
  /// The file is opened by its name when its creation is read: one renamed away before the
  /// event is read cannot be opened any more. A build under a sanitizer reads events many times
  /// more slowly (seen here under ThreadSanitizer: the fifth file gone before its event was
  /// read), so there the files stay 20 ms: the same path, at a pace that build can keep.
  @Test func filesRenamedAwayAMillisecondAfterTheyAppearAreAllPrinted() throws {
    let lifetime: useconds_t = TestProcess.isSanitized ? 20_000 : 1_000
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let follow = try FollowProcess(["--rotate-wait", "200ms", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("cannot open app.log: No such file or directory"))
    for file in 0..<5 {
      append("file \(file)", to: log)
      usleep(lifetime)
      #expect(rename(log, log + ".\(file)") == 0)
      usleep(50_000)
    }
    append("last", to: log)
    let expected = (0..<5).map { "file \($0)" } + ["last"]
    #expect(follow.waitForLines(expected.count, seconds: 10))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == expected)
  }
}
