import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The scenarios of GNU coreutils' own tests of `tail -F` (`tests/tail/` in coreutils) that
/// `follow` failed before issue 35, run against `follow` with what `tail -F` prints: a name is
/// retried until a file is there, and a closed output ends the program, with tail's statuses.
/// Each test names its coreutils script.
@Suite struct FollowTailScenarioTests {
  /// `F-headers`: several files, none there at the start, each followed once it appears, its
  /// lines prefixed with its name.
  @Test func filesMissingAtTheStartArePrintedWithTheirNamesOnceTheyAppear() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let follow = try FollowProcess(["a", "b"], in: scratch.path)
    #expect(follow.waitForNote("cannot open a: No such file or directory"))
    #expect(follow.waitForNote("cannot open b: No such file or directory"))
    append("x", to: scratch.file("a"))
    #expect(follow.waitForLines(1))
    append("y", to: scratch.file("b"))
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["a: x", "b: y"])
    #expect(follow.errors.contains("a has appeared; following it from its start"))
  }

  /// `F-vs-missing`: the FILE's directory does not exist at the start; made with the file,
  /// removed and made again with another file, each is followed.
  @Test func aFileInADirectoryMissingAtTheStartIsFollowedOnceBothExist() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let directory = scratch.file("missing")
    let follow = try FollowProcess(["missing/file"], in: scratch.path)
    #expect(follow.waitForNote("cannot open missing/file: No such file or directory"))
    mkdir(directory, 0o755)
    append("x", to: directory + "/file")
    #expect(follow.waitForLines(1))
    try FileManager.default.removeItem(atPath: directory)
    mkdir(directory, 0o755)
    append("y", to: directory + "/file")
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["x", "y"])
  }

  /// `retry`: a FILE missing at the start is said once, then followed from its start when it
  /// appears ("has appeared").
  @Test func aMissingFileIsSaidOnceAndFollowedFromItsStartWhenItAppears() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let follow = try FollowProcess(["missing"], in: scratch.path)
    #expect(follow.waitForNote("cannot open missing: No such file or directory"))
    Thread.sleep(forTimeInterval: 1)  // four more looks at the name
    #expect(follow.isRunning)
    append("X", "Y", to: scratch.file("missing"))
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["X", "Y"])
    #expect(follow.errors.components(separatedBy: "cannot open missing").count == 2)
    #expect(follow.errors.contains("missing has appeared; following it from its start"))
  }

  /// `retry`, on an untailable name: a directory at the start, removed, and a file made at
  /// its name.
  @Test func aDirectoryAtTheStartThatBecomesAFileIsFollowed() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let name = scratch.file("untailable")
    mkdir(name, 0o755)
    let follow = try FollowProcess(["untailable"], in: scratch.path)
    #expect(follow.waitForNote("untailable is a directory"))
    rmdir(name)
    append("foo", to: name)
    #expect(follow.waitForLines(1))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["foo"])
  }

  /// `retry`, on a dangling symbolic link: its target made later is followed.
  @Test func aDanglingSymbolicLinkIsFollowedOnceItsTargetAppears() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    symlink("missing", scratch.file("target"))
    let follow = try FollowProcess(["target"], in: scratch.path)
    #expect(follow.waitForNote("cannot open target: No such file or directory"))
    append("X", to: scratch.file("missing"))
    #expect(follow.waitForLines(1))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["X"])
  }

  /// `wait`: a FILE that never appears does not end `follow`, and does not keep it from
  /// following another; it is said once.
  @Test func aFileThatNeverAppearsDoesNotEndFollowNorStopAnother() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("old", to: scratch.file("here"))
    let follow = try FollowProcess(["here", "missing"], in: scratch.path)
    #expect(follow.waitForNote("following here, missing"))
    append("new", to: scratch.file("here"))
    #expect(follow.waitForLines(1))
    Thread.sleep(forTimeInterval: 1.5)
    #expect(follow.isRunning)
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["here: new"])
    #expect(follow.errors.components(separatedBy: "cannot open missing").count == 2)
  }

  /// `assert-2`: a FILE missing at the start, then made, deleted and made again: every
  /// file's lines are printed.
  @Test func aFileMissingAtTheStartThenDeletedAndMadeAgainIsFollowedEachTime() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let name = scratch.file("foo")
    let follow = try FollowProcess(["--rotate-wait", "0s", "foo"], in: scratch.path)
    #expect(follow.waitForNote("cannot open foo"))
    append("1", to: name)
    #expect(follow.waitForLines(1))
    unlink(name)
    #expect(follow.waitForNote("foo: deleted"))
    append("2", to: name)
    #expect(follow.waitForLines(2))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["1", "2"])
  }

  /// `symlink`: a followed symbolic link pointed (`ln -nsf`) at a target that does not exist
  /// yet; once the target is made, it is followed.
  @Test func aSymbolicLinkPointedAtATargetMadeLaterFollowsTheTarget() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("X1", to: scratch.file("target1"))
    symlink("target1", scratch.file("link"))
    let follow = try FollowProcess(["-n", "1", "link"], in: scratch.path)
    #expect(follow.waitForLines(1))
    // As `ln -nsf target2 link` does: a new link under another name, moved over the old.
    symlink("target2", scratch.file("link.new"))
    rename(scratch.file("link.new"), scratch.file("link"))
    #expect(follow.waitForNote("link: replaced"))
    Thread.sleep(forTimeInterval: 0.5)  // the target is made later, not at once
    append("X2", to: scratch.file("target2"))
    #expect(follow.waitForLines(2))
    append("X3", to: scratch.file("target2"))
    #expect(follow.waitForLines(3))
    follow.send(SIGTERM)
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["X1", "X2", "X3"])
  }

  /// Runs `follow` with `arguments` through `bash -c script`, in which `"$0" "$@"` is
  /// `follow` and its arguments; the script says follow's status on standard error. SIGPIPE
  /// is put back to its default first, as in a shell: a test process that ignores it (as
  /// `FollowProcess` makes it do, for programs fed through a pipe) hands that on, and a shell
  /// cannot undo an ignored signal it was started with.
  func throughBash(_ script: String, _ arguments: [String], in directory: String) throws
    -> FollowProcess
  {
    #if os(Linux)
      // GNU env; on Apple platforms the test that needs SIGPIPE at its default is left out.
      let launcher = ["/usr/bin/env", "--default-signal=PIPE", "/bin/bash", "-c", script]
    #else
      let launcher = ["/bin/bash", "-c", script]
    #endif
    return try FollowProcess(arguments, in: directory, launcher: launcher)
  }

  /// `pipe-f`: `follow -n 2 FILE | head -n 2`: once `head` has left, `follow` ends at once,
  /// by SIGPIPE (status 141), although nothing more is written to FILE.
  @Test(.enabled(if: isLinux, "needs GNU env to put SIGPIPE back to its default"))
  func aPipeWhoseReaderLeftEndsFollowBySIGPIPE() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("1", "2", "3", to: scratch.file("app.log"))
    let follow = try throughBash(
      #""$0" "$@" | head -n 2; echo "follow status ${PIPESTATUS[0]}" >&2"#,
      ["-n", "2", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("follow status"))
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["2", "3"])
    #expect(follow.errors.contains("follow status 141"), "\(follow.errors)")
  }

  /// `pipe-f`, with SIGPIPE ignored: the same, with status 1.
  @Test func aPipeWhoseReaderLeftEndsFollowWithStatusOneWhenSIGPIPEIsIgnored() throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    append("1", "2", "3", to: scratch.file("app.log"))
    let follow = try throughBash(
      #"trap '' PIPE; "$0" "$@" | head -n 2; echo "follow status ${PIPESTATUS[0]}" >&2"#,
      ["-n", "2", "app.log"], in: scratch.path)
    #expect(follow.waitForNote("follow status"))
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["2", "3"])
    #expect(follow.errors.contains("follow status 1\n"), "\(follow.errors)")
  }

  /// `follow /dev/null >&-`: a closed standard output is said, with status 1.
  @Test func aClosedStandardOutputIsSaidWithStatusOne() throws {
    let follow = try throughBash(
      #""$0" "$@" >&-; echo "follow status $?" >&2"#, ["/dev/null"], in: "/")
    #expect(follow.waitForNote("follow status"))
    #expect(follow.exitStatus() == 0)
    #expect(follow.errors.contains("follow: standard output: Bad file descriptor"))
    #expect(follow.errors.contains("follow status 1\n"), "\(follow.errors)")
  }

  /// `printf 'a\nb\n' | follow -n 1 -`: `-n` applies to standard input through a pipe too,
  /// whose last lines are known at its end (`tail -n 1` prints `b`).
  @Test func linesAppliesToStandardInputThroughAPipe() throws {
    let follow = try throughBash(
      #"printf 'a\nb\n' | "$0" "$@"; echo "follow status $?" >&2"#, ["-n", "1", "-"], in: "/")
    #expect(follow.waitForNote("follow status"))
    #expect(follow.exitStatus() == 0)
    #expect(follow.lines == ["b"])
    #expect(follow.errors.contains("follow status 0\n"), "\(follow.errors)")
  }
}

/// Whether the tests run on Linux.
#if os(Linux)
  private let isLinux = true
#else
  private let isLinux = false
#endif
