import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers

/// The whole of `follow`: a ``FollowedPath`` per file (a ``FileTail`` for standard input), a
/// heartbeat timer, the state file and its timer, and the signals that reload (SIGHUP) and stop
/// it (SIGINT, SIGTERM: after reading every open file to its present end, for at most
/// ``drainLimit``), all delivering on the main actor; and a watch of standard output that ends
/// the program once its reader has gone (see `Output.watchForAClosedOutput()`).
///
/// On the main actor: it is started there (``start()``) and every stream it subscribes to
/// delivers there, while the watching and timing happen on the producers' own threads, and so
/// does the reading of standard input through a pipe; a regular file is read on the main actor,
/// where its watch delivers (see ``FileTail``).
@MainActor final class Follower {
  /// How often the state file is written while lines flow.
  static let stateInterval: Duration = .seconds(1)
  /// The longest SIGINT or SIGTERM waits for the open files to be read to their present end.
  static let drainLimit: Duration = .seconds(2)

  private let options: Options
  private var paths: [FollowedPath] = []
  private var input: FileTail?
  private var inputLineCount = 0
  private var subscriptions: [SendableSubscription] = []
  /// How many lines were printed at the heartbeat's last tick (``linesPrinted``): the
  /// heartbeat compares counts kept anyway, so no line has a flag to set.
  private var linesAtLastTick = 0
  private let output: (_ label: String, _ line: String) -> Void
  /// Whether the bytes of complete lines of plain text are printed as they are, each after its
  /// input's label when there are several inputs: when the lines are printed (no `output`
  /// given). No `String` per line; the other lines take `output`, as `LineSplitter` gives them.
  private let outputsText: Bool
  /// Whether each line is printed after its input's label: there are several inputs.
  private let labelled: Bool
  private let onStop: (_ status: Int32) -> Void
  /// The state as read at the start (paths absolute), and as last written.
  private var state = StateFile()
  private var savedState: StateFile?
  private var reportedSaveProblem = false
  private var stopped = false
  private var draining: (reason: String, limit: SendableSubscription?)?
  private var ending: SendableSubscription?
  /// The last lines of standard input, when it is a pipe and `-n` is given: printed at its end.
  private var inputLastLines: [String] = []

  /// The label of standard input in line prefixes and the summary.
  static let standardInputLabel = "standard input"

  /// - Parameters:
  ///   - output: Receives each line with the label of its input (the path as given); prints
  ///     it by default.
  ///   - onStop: Called on the main actor once the follower stopped, after its summary, with the
  ///     exit status: 0, or 1 when the state file could not be written at the end.
  init(
    options: Options,
    output: ((_ label: String, _ line: String) -> Void)? = nil,
    onStop: @escaping (_ status: Int32) -> Void
  ) {
    self.options = options
    let labelled = options.paths.count > 1
    self.labelled = labelled
    self.output = output ?? { label, line in Output.line(labelled ? "\(label): \(line)" : line) }
    self.outputsText = output == nil
    self.onStop = onStop
  }

  /// Starts following every path; throws the first one that cannot be followed, having
  /// released the others, or a state path where no state file can be (``StateFile/refusal(of:)``).
  func start() throws {
    if let statePath = options.statePath, let refusal = StateFile.refusal(of: statePath) {
      throw refusal
    }
    Output.watchForAClosedOutput()
    let resumed = loadState()
    for path in options.paths {
      do {
        if path == Options.standardInput {
          try followStandardInput()
          continue
        }
        let start = startingPoint(of: path, in: resumed)
        // Made here, not by `Optional.map`: a closure made by a generic function is called
        // through a thunk.
        var printText: ((UnsafeRawBufferPointer, Int) -> Void)?
        if outputsText, labelled {
          let label = Array("\(path): ".utf8)
          printText = { bytes, _ in Output.lines(bytes, eachAfter: label) }
        } else if outputsText {
          printText = { bytes, _ in Output.lines(bytes) }
        }
        let followed = try FollowedPath(
          path: path, start: start, rotateWait: options.rotateWait, printText: printText
        ) { [unowned self] lines in
          let output = self.output
          for line in lines { output(path, line) }
        }
        paths.append(followed)
      } catch {
        stopFollowing()
        throw error
      }
    }
    if let heartbeat = options.heartbeat {
      subscriptions.append(
        Timers.every(heartbeat).subscribe { [unowned self] _ in
          let printed = self.linesPrinted
          if printed == self.linesAtLastTick {
            Output.note("idle: no line for \(Options.text(of: heartbeat))")
          }
          self.linesAtLastTick = printed
        })
    }
    if options.statePath != nil {
      saveState()
      subscriptions.append(
        Timers.every(Self.stateInterval).subscribe { [unowned self] _ in
          self.saveState()
        })
    }
    subscriptions.append(
      try Signals.deliveries(of: SIGHUP).subscribe { [unowned self] _ in
        Output.note("SIGHUP: reopening")
        for path in self.paths { path.reopen() }
      })
    subscriptions.append(
      try Signals.deliveries(of: SIGINT, SIGTERM).subscribe {
        [unowned self] signal in
        self.drainThenStop(because: "\(signal)")
      })
    let labels = options.paths.map { $0 == Options.standardInput ? Self.standardInputLabel : $0 }
    Output.note("following \(labels.joined(separator: ", "))")
  }

  /// Lines printed, of every input together.
  private var linesPrinted: Int {
    paths.reduce(inputLineCount) { $0 + $1.lineCount }
  }

  /// Lines printed per input, in the order they were given.
  var lineCounts: [(label: String, lines: Int)] {
    var pathsLeft = paths[...]
    return options.paths.compactMap { path in
      if path == Options.standardInput { return (Self.standardInputLabel, inputLineCount) }
      guard let followed = pathsLeft.popFirst() else { return nil }
      return (followed.path, followed.lineCount)
    }
  }

  /// Reads every open file to its present end, for at most ``drainLimit``, then stops: lines
  /// already written to a file, even one deleted meanwhile that only `follow` can still read,
  /// are printed before it exits. The files still waiting their turn are read too, in their
  /// turn (see `FollowedPath.readToCurrentEnd(then:)`). A second call stops at once.
  func drainThenStop(because reason: String) {
    guard !stopped else { return }
    if draining != nil { return stopSoon(because: reason) }
    draining = (reason, nil)
    for path in paths { path.stopWatching() }
    var left = paths.count + (input == nil ? 0 : 1) + 1
    let drained = { [unowned self] in
      left -= 1
      if left == 0 { self.stopSoon(because: reason) }
    }
    draining?.limit = Timers.after(Self.drainLimit).subscribe { [unowned self] _ in
      guard self.ending == nil else { return }
      Output.note(
        "\(reason): not every file was read to its end within \(Options.text(of: Self.drainLimit)); stopping"
      )
      self.stopSoon(because: reason)
    }
    for path in paths { path.readToCurrentEnd(then: drained) }
    input?.readToCurrentEnd(then: drained)
    drained()
  }

  /// Stops on the next turn, out of the delivery in progress (stopping unsubscribes the stream
  /// delivering it).
  private func stopSoon(because reason: String) {
    guard !stopped, ending == nil else { return }
    ending = Timers.after(.zero).subscribe { [unowned self] _ in
      self.stop(because: reason)
    }
  }

  /// Stops everything, records the state, prints the summary and calls `onStop`. Unfinished
  /// last lines are printed when there is no state file; with one, they are left for the next
  /// run, which prints them whole (the state records where they begin).
  func stop(because reason: String) {
    guard !stopped else { return }
    stopped = true
    draining?.limit?.unsubscribe()
    stopFollowing()
    let saved = options.statePath == nil || saveState()
    Output.finish()  // the lines still waiting for a full pipe, before the summary and the exit
    let counts = lineCounts.map {
      "\($0.lines) \($0.lines == 1 ? "line" : "lines") from \($0.label)"
    }
    Output.note(
      "stopped by \(reason): \(counts.isEmpty ? "no files" : counts.joined(separator: ", "))")
    onStop(saved ? 0 : 1)
  }

  private func stopFollowing() {
    for subscription in subscriptions { subscription.unsubscribe() }
    subscriptions = []
    ending?.unsubscribe()
    let printing = options.statePath == nil
    for path in paths { path.stop(printingUnfinishedLines: printing) }
    input?.stop()
  }

  // MARK: - Standard input

  private func followStandardInput() throws {
    var info = stat()
    fstat(STDIN_FILENO, &info)
    let fd = dup(STDIN_FILENO)
    guard fd >= 0 else {
      throw FollowError(
        description: "cannot read standard input: \(String(cString: strerror(errno)))")
    }
    let identity: FileIdentity
    do {
      identity = try FileIdentity(descriptor: fd)
    } catch {
      close(fd)
      throw FollowError(description: "cannot read standard input: \(error)")
    }
    var checkpoint = FileCheckpoint(offset: info.isRegular ? Int64(lseek(fd, 0, SEEK_CUR)) : 0)
    if info.isRegular && options.lines > 0 {
      let offset = FollowedPath.startOfLastLines(
        options.lines, of: fd, size: FollowedPath.size(of: fd, info))
      checkpoint = FileCheckpoint(offset: offset)
      lseek(fd, off_t(offset), SEEK_SET)
    }
    // A pipe's last N lines are known at its end, as `tail -n N` prints them.
    let keptLines = info.isRegular ? 0 : options.lines
    let tail = FileTail(
      descriptor: fd, identity: identity, isRegular: info.isRegular,
      at: checkpoint,
      events: FileTail.Events(
        lines: { [unowned self] lines in
          guard keptLines == 0 else {
            self.inputLastLines.append(contentsOf: lines)
            self.inputLastLines.removeFirst(max(0, self.inputLastLines.count - keptLines))
            return
          }
          self.printInput(lines)
        },
        ended: { [unowned self] in self.standardInputEnded() },
        failed: { error in Output.note("\(Self.standardInputLabel): \(error)") }))
    input = tail
    try tail.start()
  }

  private func printInput(_ lines: [String]) {
    inputLineCount += lines.count
    for line in lines { output(Self.standardInputLabel, line) }
  }

  /// Standard input's writer closed it: the end, when there is nothing else to follow.
  private func standardInputEnded() {
    if !inputLastLines.isEmpty {
      printInput(inputLastLines)
      inputLastLines = []
      Output.flushLines()
    }
    guard paths.isEmpty else {
      Output.note("\(Self.standardInputLabel): ended")
      return
    }
    stopSoon(because: "the end of \(Self.standardInputLabel)")
  }

  // MARK: - State

  /// Reads the state file, saying on standard error what is used of it and what is not.
  /// Returns the recorded files per absolute path; empty when nothing can be used.
  private func loadState() -> [String: [StateFile.Entry]] {
    guard let statePath = options.statePath else { return [:] }
    switch StateFile.load(from: statePath) {
    case .success(nil):
      Output.note(
        "no state file \(statePath) yet; starting at the end of each file, and recording from now on"
      )
      return [:]
    case .failure(let problem):
      let aside = statePath + ".unusable"
      let moved = rename(statePath, aside) == 0
      Output.note(
        "\(problem); starting at the end of each file\(moved ? " (the file was moved to \(aside))" : "")"
      )
      return [:]
    case .success(let loaded?):
      state = loaded
      savedState = loaded
      return loaded.paths
    }
  }

  /// Where to start `path`: where the state says, else at its end (less `--lines`).
  private func startingPoint(
    of path: String, in resumed: [String: [StateFile.Entry]]
  ) -> FollowedPath.Start {
    guard options.statePath != nil, savedState != nil else { return .end(lines: options.lines) }
    // A path recorded with no file (there was none to read when the state was written) is
    // resumed too: a file that appeared there since is read from its start.
    guard let entries = resumed[FollowedPath.absolute(path)] else {
      Output.note("\(path): not in the state file; starting at its end")
      return .end(lines: options.lines)
    }
    return .resume(entries)
  }

  /// Writes the state file when it changed; whether it is written. Entries of paths not
  /// followed this time are kept as they were.
  @discardableResult
  private func saveState() -> Bool {
    guard let statePath = options.statePath else { return true }
    for path in paths { state.paths[path.absolutePath] = path.stateEntries }
    guard state != savedState else { return true }
    if let problem = state.save(to: statePath) {
      if !reportedSaveProblem { Output.note("\(problem); trying again every second") }
      reportedSaveProblem = true
      return false
    }
    savedState = state
    reportedSaveProblem = false
    return true
  }
}
