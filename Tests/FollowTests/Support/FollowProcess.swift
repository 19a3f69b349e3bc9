import Dispatch
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `follow` program, built by `swift build` / `swift test` next to the test bundle, run
/// as a child process whose output a test reads as it arrives.
final class FollowProcess: @unchecked Sendable {
  // `stdoutText` and `stderrText` are guarded by `condition`; `process` is set up in `init`
  // and then only used through its own thread-safe methods.
  private let process = Process()
  private let condition = NSCondition()
  private var stdoutText = ""
  private var stderrText = ""
  /// Each chunk read from either output, with when it was read (seconds of `DispatchTime`'s
  /// uptime clock) and whether it came from standard error: the storm's journal.
  private var chunks: [(time: Double, isError: Bool, text: String)] = []
  /// How many of the two output readers have reached the end of their pipe.
  private var finishedReaders = 0
  /// Whether standard output is left unread (``resumeOutput()``): once its pipe is full, the
  /// program's writes to it wait.
  private var outputPaused: Bool
  /// The write end of the program's standard input, when the test feeds it.
  private let input: FileHandle?

  /// The built program: in the same folder as the test bundle, or the one `FOLLOW_EXECUTABLE`
  /// names (to run the tests against another build, such as the one before a change).
  static var executable: URL {
    if let other = ProcessInfo.processInfo.environment["FOLLOW_EXECUTABLE"], !other.isEmpty {
      return URL(fileURLWithPath: other)
    }
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return bundle.appendingPathComponent("follow")
  }

  /// Starts `follow` with `arguments` in `directory`; through `launcher` when given (a
  /// program and its arguments, which run `follow` and its arguments after them). With
  /// `feedingInput`, its standard input is a pipe that ``writeInput(_:)`` writes into;
  /// otherwise /dev/null. With `outputPaused`, its standard output is not read until
  /// ``resumeOutput()``.
  init(
    _ arguments: [String], in directory: String? = nil, launcher: [String] = [],
    feedingInput: Bool = false, outputPaused: Bool = false
  ) throws {
    self.outputPaused = outputPaused
    if let program = launcher.first {
      process.executableURL = URL(fileURLWithPath: program)
      process.arguments = launcher.dropFirst() + [Self.executable.path] + arguments
    } else {
      process.executableURL = Self.executable
      process.arguments = arguments
    }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    if feedingInput {
      // A program that exited early must fail the test, not kill it with SIGPIPE.
      TestProcess.ignoreBrokenPipes()
      let pipe = Pipe()
      process.standardInput = pipe
      input = pipe.fileHandleForWriting
    } else {
      process.standardInput = FileHandle.nullDevice
      input = nil
    }
    try process.run()
    // Each output is read by a thread of its own with blocking reads, not by a Dispatch
    // source (`readabilityHandler`): many read sources made and cancelled on parallel test
    // threads crash libdispatch's epoll loop on Linux now and then.
    for (pipe, isError) in [(out, false), (err, true)] {
      let handle = pipe.fileHandleForReading
      let thread = Thread { [weak self] in
        while true {
          if !isError { self?.waitWhileOutputPaused() }
          let data = handle.availableData
          if data.isEmpty {
            self?.readerFinished()
            return
          }
          self?.append(data, toError: isError)
        }
      }
      thread.start()
    }
  }

  private func waitWhileOutputPaused() {
    condition.lock()
    while outputPaused { condition.wait() }
    condition.unlock()
  }

  /// Stops reading standard output (after the read under way): once its pipe is full, the
  /// program's writes to it wait, until ``resumeOutput()``.
  func pauseOutput() {
    condition.lock()
    outputPaused = true
    condition.unlock()
  }

  /// Reads standard output again, after `outputPaused`.
  func resumeOutput() {
    condition.lock()
    outputPaused = false
    condition.broadcast()
    condition.unlock()
  }

  private func readerFinished() {
    condition.lock()
    finishedReaders += 1
    condition.broadcast()
    condition.unlock()
  }

  private func append(_ data: Data, toError: Bool) {
    let text = String(decoding: data, as: UTF8.self)
    let time = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    condition.lock()
    if toError { stderrText += text } else { stdoutText += text }
    chunks.append((time, toError, text))
    condition.broadcast()
    condition.unlock()
  }

  /// What the program printed on standard output so far, line by line.
  var lines: [String] {
    condition.lock()
    defer { condition.unlock() }
    return stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
      String.init)
  }

  /// What the program printed on standard error so far.
  var errors: String {
    condition.lock()
    defer { condition.unlock() }
    return stderrText
  }

  /// Each chunk read from the program's outputs so far, with when it was read (seconds of
  /// `DispatchTime`'s uptime clock) and whether it came from standard error.
  var timedChunks: [(time: Double, isError: Bool, text: String)] {
    condition.lock()
    defer { condition.unlock() }
    return chunks
  }

  /// The process identifier, for signals and /proc.
  var pid: Int32 { process.processIdentifier }

  /// Whether the program is still running.
  var isRunning: Bool { process.isRunning }

  /// Waits until `done(stdout, stderr)` holds, for at most `seconds`; whether it held. A deadline
  /// for what must happen, never a timing assertion: the default, 60 s, only keeps a test that
  /// would wait forever from hanging.
  @discardableResult
  func wait(seconds: Double = 60, until done: (_ stdout: String, _ stderr: String) -> Bool)
    -> Bool
  {
    let deadline = Date(timeIntervalSinceNow: seconds)
    condition.lock()
    defer { condition.unlock() }
    // Woken by output, and every 10 ms for what no output announces (a file the program
    // writes, its open descriptors), which would otherwise be looked at only at the deadline.
    while !done(stdoutText, stderrText) {
      if Date() >= deadline { return false }
      _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.01)))
    }
    return true
  }

  /// Waits until standard output holds `count` lines.
  @discardableResult
  func waitForLines(_ count: Int, seconds: Double = 60) -> Bool {
    wait(seconds: seconds) { out, _ in out.filter { $0 == "\n" }.count >= count }
  }

  /// Waits until standard error contains `text`.
  @discardableResult
  func waitForNote(_ text: String, seconds: Double = 60) -> Bool {
    wait(seconds: seconds) { _, err in err.contains(text) }
  }

  /// Writes `text` to the program's standard input (made with `feedingInput`).
  func writeInput(_ text: String) {
    try? input?.write(contentsOf: Data(text.utf8))
  }

  /// Closes the program's standard input: its end of file.
  func closeInput() {
    try? input?.close()
  }

  /// Sends `signal` to the program.
  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Waits for the program to exit, for at most `seconds` (then kills it); its exit status,
  /// or nil when it had to be killed or died of a signal.
  func exitStatus(seconds: Double = 60) -> Int32? {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
      process.terminate()
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return nil
    }
    process.waitUntilExit()
    // Let the readers take the last output: both pipes end once the program is gone (a fixed
    // 50 ms pause lost the output of a program that had exited, on a loaded machine).
    let readersDeadline = Date(timeIntervalSinceNow: 10)
    condition.lock()
    while finishedReaders < 2 && condition.wait(until: readersDeadline) {}
    condition.unlock()
    return process.terminationReason == .exit ? process.terminationStatus : nil
  }

  /// The program's resident memory in KiB (Linux: VmRSS of /proc/PID/status), or -1.
  var residentKilobytes: Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
  }

  /// The number of `write`-like system calls the program made so far (Linux: `syscw` of
  /// /proc/PID/io), or nil.
  var writeCallCount: Int? { ioCount("syscw") }

  /// How many read calls (`read`, `pread`, `readv`) the program made so far: `syscr` of
  /// /proc/PID/io (Linux), or nil.
  var readCallCount: Int? { ioCount("syscr") }

  /// The field `name` of /proc/PID/io, or nil.
  private func ioCount(_ name: String) -> Int? {
    guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8),
      let line = io.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
    else { return nil }
    return Int(line.split(separator: " ").dropFirst().first ?? "")
  }

  /// How many times the program's threads waited so far: the sum of `voluntary_ctxt_switches`
  /// over /proc/PID/task/*/status (Linux), or nil. Each wait of a thread that is then woken
  /// for work is one thread switch on some event's way.
  var voluntarySwitchCount: Int? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
    else { return nil }
    var total = 0
    for task in tasks {
      guard
        let status = try? String(
          contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: {
          $0.hasPrefix("voluntary_ctxt_switches:")
        }),
        let count = Int(line.split(whereSeparator: \.isWhitespace).last ?? "")
      else { continue }
      total += count
    }
    return total
  }

  /// How many of the program's descriptors are open on the file at `path` (Linux: the entries
  /// of /proc/PID/fd on its device and inode), or -1.
  func descriptorsOpen(on path: String) -> Int {
    var file = stat()
    guard stat(path, &file) == 0,
      let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
    else { return -1 }
    return entries.filter { entry in
      var info = stat()
      return stat("/proc/\(pid)/fd/\(entry)", &info) == 0 && info.st_dev == file.st_dev
        && info.st_ino == file.st_ino
    }.count
  }

  /// The number of descriptors the program has open (Linux: entries of /proc/PID/fd).
  var openDescriptorCount: Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
  }
}

/// A fresh temporary directory for one test, removed by `remove()`.
struct Scratch {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "follow-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> String { path + "/" + name }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A log writer that keeps its descriptor open across rotations, as real ones do.
final class LogWriter {
  private(set) var fd: Int32

  init(_ path: String) {
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "open \(path) failed")
  }

  func write(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    precondition(written == bytes.count)
  }

  /// Closes the current file and opens `path` (as a writer does on SIGHUP).
  func reopen(_ path: String) {
    Foundation.close(fd)
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "open \(path) failed")
  }

  func close() {
    Foundation.close(fd)
  }
}

/// Appends `lines` to the file at `path`, opening and closing it.
func append(_ lines: String..., to path: String) {
  append(lines, to: path)
}

/// Appends `lines` to the file at `path`, opening and closing it.
func append(_ lines: [String], to path: String) {
  let writer = LogWriter(path)
  for line in lines { writer.write(line) }
  writer.close()
}

/// Makes a Unix-domain socket file at `path`: a file that exists and that nobody can open.
func makeSocketFile(at path: String) {
  #if canImport(Glibc)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
  #else
    let fd = socket(AF_UNIX, SOCK_STREAM, 0)
  #endif
  precondition(fd >= 0, "socket failed")
  defer { close(fd) }
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  let bytes = path.utf8CString
  precondition(bytes.count <= MemoryLayout.size(ofValue: address.sun_path), "path too long")
  withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
    bytes.withUnsafeBytes { sunPath.copyMemory(from: $0) }
  }
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  precondition(bound == 0, "bind \(path) failed")
}

/// A launcher for `FollowProcess` that runs the program as the user and group nobody.
let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

/// Whether ``asNobody`` can be used: as root, where `setpriv` exists.
let canRunAsNobody = getuid() == 0 && FileManager.default.isExecutableFile(atPath: asNobody[0])
