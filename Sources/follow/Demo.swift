import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers

/// The built-in demo, run when `follow` is given no file: a writer appends numbered lines to a
/// temporary log and rotates it the way log writers do (renames it away, keeps writing to the
/// old file for a moment, then opens a new one), while a ``Follower`` follows the log's path.
/// At the end it checks that every line arrived once and in order, and says so.
///
/// On the main actor, where its timer and the follower deliver.
@MainActor final class Demo {
  private static let lineCount = 16
  private static let renameAt = 7
  private static let reopenAt = 10

  private let directory: String
  private let path: String
  private var follower: Follower?
  private var writing: SendableSubscription?
  private var stopping: SendableSubscription?
  private var writer: Int32 = -1
  private var written = 0
  private var received: [String] = []

  init(options: Options) throws {
    directory = NSTemporaryDirectory() + "follow-demo-\(getpid())"
    path = directory + "/app.log"
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true)
    writer = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    var demoOptions = options
    demoOptions.paths = [path]
    if options.rotateWaitWasGiven == false { demoOptions.rotateWait = .seconds(1) }
    let wait = demoOptions.rotateWait
    Output.note(
      "demo: following \(path) while a writer appends \(Self.lineCount) lines and rotates it")
    let follower = Follower(options: demoOptions) { [unowned self] _, line in
      self.received.append(line)
      Output.line(line)
    } onStop: { [unowned self] _ in
      self.finish()
    }
    self.follower = follower
    try follower.start()
    // One line a tick, numbered by the writer: a tick's index jumps when a busy machine merges
    // the timer's fires, and a line must not be skipped for it.
    writing = Timers.every(.milliseconds(150)).subscribe { [unowned self] _ in
      self.write(self.written + 1)
      guard self.written >= Self.lineCount else { return }
      self.writing?.unsubscribe()
      // Give the old file time to be closed as quiet, then stop.
      self.stopping = Timers.after(wait + .milliseconds(500)).subscribe { _ in
        self.follower?.stop(because: "the end of the demo")
      }
    }
  }

  private func write(_ number: Int) {
    if number == Self.renameAt {
      rename(path, path + ".1")
      Output.note("demo: renamed app.log to app.log.1; the writer still has the old file open")
    }
    if number == Self.reopenAt {
      close(writer)
      writer = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
      Output.note("demo: the writer opened a new app.log")
    }
    let line = "demo line \(number)\n"
    _ = line.withCString { Foundation.write(writer, $0, strlen($0)) }
    written = number
  }

  private func finish() {
    writing?.unsubscribe()
    close(writer)
    try? FileManager.default.removeItem(atPath: directory)
    let expected = (1...max(written, 1)).map { "demo line \($0)" }
    if received == Array(expected.prefix(received.count)) && received.count == written {
      Output.note("demo: all \(written) lines arrived once and in order, across the rotation")
      exit(0)
    }
    Output.note("demo: expected \(written) lines in order, got \(received.count): \(received)")
    exit(1)
  }
}
