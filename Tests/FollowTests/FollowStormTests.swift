import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A storm of the faults that come together on a busy machine, against one `follow --state`
/// that is stopped and started again throughout, with an oracle of every line written.
///
/// Writers of numbered lines, one thread per log, some lines written whole and some in pieces
/// cut anywhere, a few milliseconds apart; and, at random: rotation by rename (the writer
/// reopens its path 0-300 ms later), deletion and re-creation (the same), and `follow` stopped
/// with SIGTERM and started again with the same `--state`, at any moment, half of the times
/// with a rotation while it is down (a restart in a rotation's window: the old file renamed,
/// the new one not made yet). One log does not exist when `follow` starts.
///
/// The oracle: every line printed is one the writers wrote, whole; each log's lines come out
/// in the order written, each once; and every line written is printed, but for those written
/// to a deleted file after the `follow` that held it was told to stop (nothing can read them).
/// A log's file is rotated or deleted only once it has existed for a second, so that `follow`
/// has seen it (a file made and renamed away before any reader looked is lost to every reader).
///
/// Seeded: the decisions (which fault, when, which log, the writers' pieces and pauses) come
/// from `STORM_SEED`; the timing of the threads and of `follow` does not, so a run is
/// reproducible in what it does, not to the microsecond. Runs only when `STORM_SECONDS` is set:
/// `.ci/run` runs it for 20 s, and `Benchmarks/follow-storm` for 10 minutes with three seeds.
@Suite struct FollowStormTests {
  /// The storm's settings from the environment: `STORM_SECONDS`, `STORM_SEED` (1),
  /// `STORM_LOGS` (6).
  static let settings: Storm.Settings? = {
    let environment = ProcessInfo.processInfo.environment
    guard let seconds = environment["STORM_SECONDS"].flatMap(Double.init), seconds > 0 else {
      return nil
    }
    return Storm.Settings(
      seconds: seconds,
      seed: environment["STORM_SEED"].flatMap { UInt64($0) } ?? 1,
      logs: environment["STORM_LOGS"].flatMap { Int($0) }.map { max(2, $0) } ?? 6)
  }()

  @Test(.enabled(if: settings != nil, "set STORM_SECONDS to run the storm"))
  func aStormOfRotationsDeletionsAndRestartsLosesDoublesSplitsAndReordersNoLine() throws {
    let storm = Storm(try #require(Self.settings))
    let report = try storm.run()
    print(report.summary)
    // A failed storm keeps its directory: the files, each run's state file and output, and the
    // journal of what happened when (storm-journal.txt).
    if report.failures.isEmpty {
      storm.scratch.remove()
    } else {
      Issue.record("the storm's files and journal are kept in \(storm.scratch.path)")
    }
    for failure in report.failures.prefix(20) { Issue.record("\(failure)") }
    #expect(report.failures.isEmpty, "\(report.failures.count) failures")
  }
}

/// One storm: its logs, writers, faults and `follow` runs, and the check of what was printed.
final class Storm: Sendable {
  struct Settings {
    var seconds: Double
    var seed: UInt64
    var logs: Int
  }

  /// A line a writer finished writing.
  struct Written {
    var number: Int
    /// Which of the log's files it went to: 1 for the first file opened, and so on.
    var generation: Int
    /// When its last byte was written.
    var completed: Double
  }

  /// What a writer and the faults share about one log.
  struct Log {
    var generation = 0
    var opened = 0.0
    /// When the writer is to reopen its path (after a rotation or deletion).
    var reopenAt: Double?
    /// When each deleted file was deleted.
    var deletedAt: [Int: Double] = [:]
    var written: [Written] = []
  }

  struct Shared {
    var logs: [Log]
    var writing = false
    var stopping = false
    var finishedWriters = 0
  }

  /// One run of `follow`: from when it said it was following to when it was sent SIGTERM.
  struct Run {
    var started: Double
    var terminated = Double.infinity
  }

  struct Report {
    var summary: String
    var failures: [String]
  }

  let settings: Settings
  let scratch = Scratch()
  let shared: Mutex<Shared>
  /// What happened, when (seconds since the storm started): the faults, the writers' reopens,
  /// the runs of `follow`; written to storm-journal.txt when the storm fails.
  let journal = Mutex<[(time: Double, text: String)]>([])
  let began = Storm.now()
  /// The log that does not exist when `follow` starts; its writer starts after this delay.
  static let lateLogDelay = 1.5
  /// A file younger than this is not rotated or deleted: `follow` must have seen it.
  static let youngest = 1.0

  init(_ settings: Settings) {
    self.settings = settings
    shared = Mutex(Shared(logs: Array(repeating: Log(), count: settings.logs)))
  }

  var names: [String] { (0..<settings.logs).map { "app\($0).log" } }

  func path(_ log: Int) -> String { scratch.file("app\(log).log") }

  /// Adds `text` to the journal, at the time now.
  func record(_ text: String) {
    let time = Self.now()
    journal.withLock { $0.append((time, text)) }
  }

  /// The inode of the file at `path`, or -1.
  static func inode(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_ino) : -1
  }

  /// Seconds on a monotonic clock.
  static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

  /// The text of line `number` of `log`, without its newline: its length varies with the number.
  static func line(log: Int, number: Int) -> String {
    let padding = Character(UnicodeScalar(UInt8(97 + number % 26)))
    let digits = String(number)
    return "app\(log) " + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + " "
      + String(repeating: padding, count: 10 + number * 37 % 90)
  }

  // MARK: - Writers

  private func writeLines(log: Int) {
    var random = SeededGenerator(seed: settings.seed &* 1_000_003 &+ UInt64(log))
    let late = log == settings.logs - 1
    var fd: Int32 = -1
    var number = 0
    var start = 0.0
    while true {
      let (stop, reopen, writing) = shared.withLock { shared -> (Bool, Bool, Bool) in
        if shared.stopping && shared.logs[log].reopenAt == nil { return (true, false, true) }
        let reopen = shared.logs[log].reopenAt.map { Self.now() >= $0 } ?? false
        return (false, reopen, shared.writing)
      }
      if stop { break }
      guard writing else {
        usleep(2000)
        continue
      }
      if start == 0 { start = Self.now() }
      if fd < 0 && late && Self.now() < start + Self.lateLogDelay {
        usleep(2000)
        continue
      }
      if fd < 0 || reopen {
        if fd >= 0 { close(fd) }
        fd = open(path(log), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(path(log)) failed")
        let generation = shared.withLock { shared in
          shared.logs[log].generation += 1
          shared.logs[log].opened = Self.now()
          shared.logs[log].reopenAt = nil
          return shared.logs[log].generation
        }
        var info = stat()
        fstat(fd, &info)
        record(
          "app\(log).log: the writer opened file \(generation), inode \(info.st_ino), at line \(number + 1)"
        )
      }
      number += 1
      let bytes = Array((Self.line(log: log, number: number) + "\n").utf8)
      let generation = shared.withLock { $0.logs[log].generation }
      // One line in four is cut in two or three pieces, written up to 20 ms apart.
      var cuts: [Int] = []
      if random.oneIn(4) {
        cuts = (0..<(1 + random.below(2))).map { _ in 1 + random.below(bytes.count - 1) }.sorted()
      }
      var from = 0
      for end in cuts + [bytes.count] where end > from {
        let written = bytes[from..<end].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        precondition(written == end - from, "write failed")
        from = end
        if end < bytes.count { usleep(UInt32(random.below(20_000))) }
      }
      let completed = Self.now()
      shared.withLock {
        $0.logs[log].written.append(
          Written(number: number, generation: generation, completed: completed))
      }
      usleep(UInt32(1000 + random.below(7000)))
    }
    if fd >= 0 { close(fd) }
    shared.withLock { $0.finishedWriters += 1 }
  }

  // MARK: - Faults

  /// Renames the log's file away (`rename`) or deletes it, when it is old enough and no reopen
  /// is pending; the writer reopens its path `delay` seconds later. Whether it did.
  private func move(log: Int, deleting: Bool, delay: Double, counter: inout Int) -> Bool {
    shared.withLock { shared in
      let now = Self.now()
      guard shared.logs[log].generation > 0, shared.logs[log].reopenAt == nil,
        now - shared.logs[log].opened >= Self.youngest
      else { return false }
      let inode = Self.inode(path(log))
      let generation = shared.logs[log].generation
      if deleting {
        precondition(unlink(path(log)) == 0, "unlink failed")
        shared.logs[log].deletedAt[shared.logs[log].generation] = now
        record("app\(log).log: deleted file \(generation), inode \(inode)")
      } else {
        counter += 1
        precondition(rename(path(log), path(log) + ".\(counter)") == 0, "rename failed")
        record(
          "app\(log).log: renamed file \(generation), inode \(inode), to app\(log).log.\(counter)")
      }
      shared.logs[log].reopenAt = now + delay
      return true
    }
  }

  // MARK: - The storm

  func run() throws -> Report {
    var random = SeededGenerator(seed: settings.seed)
    let arguments = ["--state", "follow.state"] + names
    for log in 0..<(settings.logs - 1) { append(to: path(log)) }
    for log in 0..<settings.logs {
      Thread { [self] in writeLines(log: log) }.start()
    }
    var outputs: [[String]] = []
    var errors = ""
    var runs: [Run] = []
    var counts = (rotations: 0, deletions: 0, restarts: 0, windows: 0)
    var counter = 0
    var failures: [String] = []

    var processes: [FollowProcess] = []
    func start() throws -> FollowProcess {
      // The state file each run starts from.
      try? FileManager.default.copyItem(
        atPath: scratch.file("follow.state"), toPath: scratch.file("follow.state.\(runs.count + 1)")
      )
      let follow = try FollowProcess(arguments, in: scratch.path)
      processes.append(follow)
      record("run \(runs.count + 1): started, pid \(follow.pid)")
      let started = follow.wait(seconds: 60) { _, errors in
        errors.contains("following app0.log") || !follow.isRunning
      }
      if !started || !follow.isRunning {
        failures.append("follow did not start: \(follow.errors.suffix(2000))")
      }
      runs.append(Run(started: Self.now()))
      return follow
    }
    func stop(_ follow: FollowProcess) {
      runs[runs.count - 1].terminated = Self.now()
      record("run \(runs.count): SIGTERM")
      follow.send(SIGTERM)
      let status = follow.exitStatus(seconds: 60)
      if status != 0 { failures.append("follow exited with \(String(describing: status))") }
      if status == nil {
        // Never two runs at once on one state file: the next starts once this one is gone.
        follow.send(SIGKILL)
        _ = follow.exitStatus(seconds: 600)
      }
      outputs.append(follow.lines)
      errors += follow.errors
    }

    var follow = try start()
    shared.withLock { $0.writing = true }
    let end = Self.now() + settings.seconds
    while Self.now() < end {
      usleep(UInt32(100_000 + random.below(500_000)))
      let choice = random.below(10)
      let log = random.below(settings.logs)
      let delay = Double(random.below(300)) / 1000
      if choice < 5 {
        if move(log: log, deleting: false, delay: delay, counter: &counter) {
          counts.rotations += 1
        }
      } else if choice < 7 {
        if move(log: log, deleting: true, delay: delay, counter: &counter) {
          counts.deletions += 1
        }
      } else {
        stop(follow)
        counts.restarts += 1
        if random.oneIn(2), move(log: log, deleting: false, delay: delay, counter: &counter) {
          counts.rotations += 1
          counts.windows += 1
        }
        usleep(UInt32(random.below(300_000)))
        follow = try start()
      }
    }
    shared.withLock { $0.stopping = true }
    let writersDeadline = Self.now() + 30
    while shared.withLock({ $0.finishedWriters }) < settings.logs && Self.now() < writersDeadline {
      usleep(10_000)
    }
    // Time to see the last reopened files (looked at every 250 ms when a name is missing).
    usleep(1_500_000)
    stop(follow)

    let logs = shared.withLock { $0.logs }
    failures += Self.check(outputs: outputs, logs: logs, runs: runs)
    let written = logs.map(\.written.count).reduce(0, +)
    let printed = outputs.map(\.count).reduce(0, +)
    let allowed = Self.allowedMisses(logs: logs, runs: runs).count
    let summary = """
      storm: seed \(settings.seed), \(Int(settings.seconds)) s, \(settings.logs) logs: \
      \(written) lines written, \(printed) printed, \(allowed) written to a deleted file after \
      follow exited (allowed to miss); \(counts.rotations) rotations (\(counts.windows) while \
      follow was down), \(counts.deletions) deletions, \(counts.restarts) restarts; \
      \(failures.isEmpty ? "every line printed once, whole, in order" : "\(failures.count) failures")
      """
    if !failures.isEmpty {
      let notes = errors.split(separator: "\n").suffix(40).joined(separator: "\n")
      failures.append("the last notes of follow:\n\(notes)")
      writeJournal(processes)
    }
    return Report(summary: summary, failures: failures)
  }

  /// Writes storm-journal.txt (the journal and every run's notes, in time order) and, for each
  /// run, run-N.out (its output, each chunk read with its time) into the storm's directory.
  private func writeJournal(_ processes: [FollowProcess]) {
    var entries = journal.withLock { $0 }
    for (index, process) in processes.enumerated() {
      var output = ""
      for chunk in process.timedChunks {
        let time = String(format: "%.4f", chunk.time - began)
        if chunk.isError {
          for line in chunk.text.split(separator: "\n") {
            entries.append((chunk.time, "run \(index + 1) said: \(line)"))
          }
        } else {
          output += "== \(time)\n\(chunk.text)"
        }
      }
      try? output.write(
        toFile: scratch.file("run-\(index + 1).out"), atomically: false, encoding: .utf8)
    }
    let text = entries.sorted { $0.time < $1.time }.map {
      String(format: "%10.4f ", $0.time - began) + $0.text
    }.joined(separator: "\n")
    try? (text + "\n").write(
      toFile: scratch.file("storm-journal.txt"), atomically: false, encoding: .utf8)
  }

  // MARK: - The oracle

  /// The lines (log, number) that may be missing: written to a deleted file after the `follow`
  /// that held it (the run that was up when it was deleted) was told to stop, or when none was.
  static func allowedMisses(logs: [Log], runs: [Run]) -> Set<[Int]> {
    var allowed: Set<[Int]> = []
    for (index, log) in logs.enumerated() {
      for line in log.written {
        guard let deleted = log.deletedAt[line.generation], line.completed > deleted else {
          continue
        }
        let holder = runs.first { $0.started < deleted && deleted < $0.terminated }
        if holder.map({ $0.terminated < line.completed }) ?? true {
          allowed.insert([index, line.number])
        }
      }
    }
    return allowed
  }

  /// What the output of the runs, in order, breaks of the promise.
  static func check(outputs: [[String]], logs: [Log], runs: [Run]) -> [String] {
    var failures: [String] = []
    var printed = Array(repeating: [Int](), count: logs.count)
    for (run, lines) in outputs.enumerated() {
      for text in lines {
        // "appI.log: appI NNNNNNNN padding"
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].hasPrefix("app"), parts[0].hasSuffix(".log:"),
          let log = Int(parts[0].dropFirst(3).dropLast(5)), log < logs.count,
          let number = Int(parts[2]),
          "\(parts[0]) \(line(log: log, number: number))" == text
        else {
          failures.append("run \(run + 1) printed a line that was not written whole: \(text)")
          continue
        }
        printed[log].append(number)
      }
    }
    let allowed = allowedMisses(logs: logs, runs: runs)
    for (index, log) in logs.enumerated() {
      let numbers = printed[index]
      for position in numbers.indices.dropFirst() where numbers[position] <= numbers[position - 1] {
        let around = numbers[max(0, position - 4)..<min(numbers.count, position + 3)]
        failures.append("app\(index).log: out of order or doubled: \(Array(around))")
      }
      let seen = Set(numbers)
      let missing = log.written.map(\.number).filter {
        !seen.contains($0) && !allowed.contains([index, $0])
      }
      if !missing.isEmpty {
        failures.append(
          "app\(index).log: \(missing.count) lines written and not printed: \(missing.prefix(20))")
      }
      let unwritten = seen.subtracting(log.written.map(\.number))
      if !unwritten.isEmpty {
        failures.append(
          "app\(index).log: printed lines never written: \(unwritten.sorted().prefix(20))")
      }
    }
    return failures
  }
}

/// Makes the file at `path` if it is not there.
private func append(to path: String) {
  let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
  close(fd)
}
