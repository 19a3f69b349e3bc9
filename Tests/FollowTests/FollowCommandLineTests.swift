import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What Unix users type without thinking: `-n`, `-`, `--version`, `--option=value`, `--`, and
/// a short answer to an unknown option.
@Suite struct FollowCommandLineTests {
  @Test(arguments: [["-n", "2"], ["-n2"], ["--lines", "2"], ["--lines=2"]])
  func linesStartsWithTheLastLinesOfTheFile(option: [String]) throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("line 1", "line 2", "line 3", "line 4", "line 5", to: scratch.file("app.log"))
    let follow = try FollowProcess(option + ["app.log"], in: scratch.path)
    #expect(follow.waitForLines(2))
    append("line 6", to: scratch.file("app.log"))
    #expect(follow.waitForLines(3))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["line 4", "line 5", "line 6"])
  }

  @Test func linesCountsALastLineWithoutNewlineAndPrintsItAtExit() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    let fd = open(log, O_WRONLY | O_CREAT, 0o644)
    _ = Array("a\nb\nc".utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    let follow = try FollowProcess(["-n", "2", "app.log"], in: scratch.path)
    #expect(follow.waitForLines(1))
    // "c" waits for its newline, until the exit.
    Thread.sleep(forTimeInterval: 0.5)
    #expect(follow.lines == ["b"])
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["b", "c"])
  }

  @Test func linesLargerThanTheFilePrintsAllOfIt() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("only", "two", to: scratch.file("app.log"))
    let follow = try FollowProcess(["--lines=10", "app.log"], in: scratch.path)
    #expect(follow.waitForLines(2))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["only", "two"])
  }

  /// A `/proc` file's size reads 0, yet it has lines: `-n` counts them like any file's, and
  /// without it nothing that is already there is printed, as `tail -n 0 -F` does.
  #if os(Linux)
    @Test(arguments: [0, 2])
    func aFileWhoseSizeReadsZeroStartsWithItsLastLinesLikeAnyOther(lines: Int) throws {
      let path = "/proc/filesystems"
      let content = try String(contentsOfFile: path, encoding: .utf8)
      let all = content.split(separator: "\n").map(String.init)
      try #require(all.count > 2)
      let follow = try FollowProcess(["-n", "\(lines)", path])
      #expect(follow.waitForNote("following \(path)"))
      if lines > 0 { #expect(follow.waitForLines(lines)) }
      // Long enough for a first pass that printed more to have shown it.
      Thread.sleep(forTimeInterval: 0.5)
      follow.send(SIGINT)
      #expect(follow.exitStatus() == 0)
      #expect(follow.lines == Array(all.suffix(lines)))
    }
  #endif

  @Test func aDashReadsStandardInputToItsEnd() throws {
    let follow = try FollowProcess(["-"], feedingInput: true)
    #expect(follow.waitForNote("following standard input"))
    follow.writeInput("one\ntwo\n")
    #expect(follow.waitForLines(2))
    follow.writeInput("no newline")
    follow.closeInput()
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["one", "two", "no newline"])
    #expect(
      follow.errors.contains("stopped by the end of standard input: 3 lines from standard input"))
  }

  @Test func standardInputBesideAFileIsLabelledAndItsEndDoesNotStopTheFile() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("before", to: scratch.file("app.log"))
    let follow = try FollowProcess(["-", "app.log"], in: scratch.path, feedingInput: true)
    #expect(follow.waitForNote("following standard input, app.log"))
    follow.writeInput("from the pipe\n")
    #expect(follow.waitForLines(1))
    follow.closeInput()
    #expect(follow.waitForNote("standard input: ended"))
    append("from the file", to: scratch.file("app.log"))
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["standard input: from the pipe", "app.log: from the file"])
    #expect(follow.errors.contains("1 line from standard input, 1 line from app.log"))
  }

  @Test func versionPrintsTheVersion() throws {
    let follow = try FollowProcess(["--version"])
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines.count == 1)
    #expect(follow.lines.first?.hasPrefix("follow (IndefiniteObservable) ") == true)
  }

  @Test func optionsTakeTheirValueAfterAnEqualsSign() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let log = scratch.file("app.log")
    append("start", to: log)
    let follow = try FollowProcess(
      ["--heartbeat=100ms", "--rotate-wait=0s", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("idle: no line for 100ms"))
    rename(log, log + ".1")
    #expect(follow.waitForNote("renamed; closed the old file"))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
  }

  @Test func aDoubleDashEndsTheOptions() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("start", to: scratch.file("-odd.log"))
    let follow = try FollowProcess(["--", "-odd.log"], in: scratch.path)
    #expect(follow.waitForNote("following -odd.log"))
    append("odd", to: scratch.file("-odd.log"))
    #expect(follow.waitForLines(1))
    follow.send(SIGINT)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["odd"])
  }

  @Test(arguments: [
    (["--bogus", "app.log"], "follow: unknown option '--bogus'"),
    (["-x"], "follow: unknown option '-x'"),
    (["--lines"], "follow: option '--lines' needs a number of lines, like 10"),
    (["-n", "many", "app.log"], "follow: option '-n': 'many' is not a number of lines"),
    (["--help=yes"], "follow: option '--help' takes no value"),
    (["--state", "s.json"], "follow: option '--state' needs a FILE to follow"),
    (["-", "-"], "follow: standard input (-) can be followed only once"),
  ])
  func aMistakeIsOneLineAndAPointerToHelp(arguments: [String], message: String) throws {
    let follow = try FollowProcess(arguments)
    #expect(follow.exitStatus() == 2)
    #expect(follow.errors == message + "\nTry 'follow --help' for more information.\n")
    #expect(follow.lines.isEmpty)
  }

  @Test func helpListsEveryOption() throws {
    let follow = try FollowProcess(["--help"])
    #expect(follow.exitStatus() == 0)
    let help = follow.lines.joined(separator: "\n")
    for option in [
      "-n, --lines N", "--state FILE", "--heartbeat DURATION", "--rotate-wait DURATION",
      "-h, --help", "--version", "--  ", "--option=VALUE", "FILE -",
    ] {
      #expect(help.contains(option), "\(option)")
    }
  }
}
