import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers

/// One path given to `follow`, across rotations: the file at the path now (`current`), and the
/// files rotated away from it that are still being read until they go quiet (`retiring`).
///
/// A watch of the path says when the name is renamed away, deleted, created or replaced; each
/// open file is read by its own ``FileTail``; a one-shot timer per retiring file closes it once
/// nothing was appended to it for `rotateWait`. Tails start one after the other: a tail starts
/// reading once the one started before it has read to its end, so that after a restart the
/// rest of a rotated-away file is printed before the new file at the path.
///
/// A path with no file to read (missing, a directory, a dangling symbolic link, its directory
/// missing), at the start or later, is said once on standard error and looked at again every
/// ``retryInterval`` (and by the watch of the path, when there is one) until a file can be read
/// there, which is then followed from its start, as `tail -F` does.
///
/// Before a new file at the path is read, every rotated-away file still open is read to its
/// present end, so that a writer's lines come out in the order written when it moves from the
/// old file to the new one.
///
/// On the main actor: every stream it subscribes to delivers there.
@MainActor final class FollowedPath {
  /// How often a path with no file to read is looked at again (`tail -F` looks every second
  /// when it cannot watch): a `stat` of the path, while there is no file.
  static let retryInterval: Duration = .milliseconds(250)

  /// Where to start reading the file at the path.
  enum Start {
    /// At the end, less the last `lines` lines.
    case end(lines: Int)
    /// Where an earlier run stopped, as its state file recorded: the files of the path,
    /// rotated-away ones first.
    case resume([StateFile.Entry])
  }

  let path: String
  /// The path made absolute, as the state file records it.
  let absolutePath: String
  /// Lines printed from this path's files, old and new together.
  var lineCount: Int { printed.value }
  /// The count of lines printed, which each tail of the path adds to.
  private let printed = FileTail.LineCount()

  private let rotateWait: Duration
  private let print: ([String]) -> Void
  private let printText: ((UnsafeRawBufferPointer, Int) -> Void)?
  /// The path's watch.
  private var watching: SendableSubscription?
  /// Looks at the path again while there is no file to read there.
  private var retrying: SendableSubscription?
  /// What was said about the path having no file to read, until one is read again.
  private var reportedAbsence: String?
  private var stopped = false
  /// How many rotated-away files are still being read to their present end before the next
  /// tail starts.
  private var barriers = 0
  private var current: FileTail?
  private var retiring: [Retiring] = []
  /// The tail started last, until it has read to its end; the tails waiting for it.
  private var starting: FileTail?
  private var waiting: [FileTail] = []
  /// What waits for every open file to be read to its present end (``readToCurrentEnd(then:)``).
  private var drained: [() -> Void] = []

  /// A rotated-away file, read until it has been quiet for `rotateWait`.
  private final class Retiring {
    let tail: FileTail
    var lastActivity = ContinuousClock.now
    var timer: SendableSubscription?
    init(tail: FileTail) { self.tail = tail }
  }

  /// Starts following `path`.
  ///
  /// - Parameters:
  ///   - printText: When given, receives the complete lines of plain text of a chunk as bytes
  ///     (newlines included) with their count, instead of `print` (see `FileTail.Events.text`).
  ///   - print: Receives the lines of the path's files, those of one chunk together, on the
  ///     main actor.
  init(
    path: String,
    start: Start,
    rotateWait: Duration,
    printText: ((_ bytes: UnsafeRawBufferPointer, _ lineCount: Int) -> Void)? = nil,
    print: @escaping ([String]) -> Void
  ) throws(FollowError) {
    self.path = path
    self.absolutePath = Self.absolute(path)
    self.rotateWait = rotateWait
    self.print = print
    self.printText = printText
    switch start {
    case .end(let lines):
      if try !followFileAtPath(at: .lastLines(lines)) { retryLater() }
    case .resume(let entries):
      try resume(entries)
    }
  }

  /// Follows the file at the path, opened at `position`, when there is one to read: watches the
  /// path (anew: a symbolic link is followed when the watch is made), then opens the file. When
  /// there is none (nothing at the path, a dangling link, a directory, the watch failed), says
  /// so once and returns false. Throws when the file is there but cannot be opened.
  private func followFileAtPath(at position: Position) throws(FollowError) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let reason = String(cString: strerror(errno))
      // The name is watched in its directory, before the absence is said, so that a file that
      // appears there is opened as its creation is read, however soon it is renamed away; the
      // look every `retryInterval` stays for what the watch cannot see (a missing directory,
      // the target of a dangling link).
      if watching == nil { try? watchPath(ifMissing: .waitForIt) }
      reportAbsence("cannot open \(path): \(reason); following it once it appears")
      return false
    }
    guard !info.isDirectory else {
      reportAbsence("\(path) is a directory; following it once a file is there")
      return false
    }
    do {
      try watchPath()
    } catch .notFound {
      reportAbsence("cannot open \(path): gone again; following it once it appears")
      return false
    } catch {
      throw FollowError(description: "\(error)")
    }
    let tail = try openTail(path, at: position)
    current = tail
    scheduleAfterRotatedAway(tail)
    reportedAbsence = nil
    retrying?.unsubscribe()
    retrying = nil
    return true
  }

  /// Watches the path anew, in place of the watch there was: a symbolic link is followed to
  /// the file it names now.
  ///
  /// The watch delivers on the main actor. Read on the main thread, as `MainLoop.run()` does,
  /// a change is delivered in the call that read it, so a file that appears at the path is
  /// opened as its creation is read, however soon it is renamed away; read on another thread,
  /// it hops (one hop).
  private func watchPath(ifMissing: FileWatch.IfMissing = .throwNotFound) throws(FileWatchError) {
    let watch = try FileWatch.changes(at: path, ifMissing: ifMissing).subscribe {
      [unowned self] change in
      let opened: OpenedFile? =
        switch change {
        case .created, .replaced: OpenedFile(self.path)
        // Where a file that left the path went: one this run never read is read there.
        case .renamed(let destination?): OpenedFile(destination)
        default: nil
        }
      self.pathChanged(change, opened: opened)
    }
    stopWatchingPath()
    watching = watch
  }

  /// Ends the path's watch: no change is taken in after this.
  private func stopWatchingPath() {
    watching?.unsubscribe()
    watching = nil
  }

  /// A file opened for reading where the watch read that it appeared at the path; closed when
  /// the last reference goes (a tail that follows it reads a duplicate).
  private final class OpenedFile {
    let fd: Int32
    let identity: FileIdentity

    /// Opens the file at `path`; nil when there is none to open any more.
    init?(_ path: String) {
      let fd = FollowedPath.openForReading(path)
      guard fd >= 0 else { return nil }
      guard let identity = try? FileIdentity(descriptor: fd) else {
        close(fd)
        return nil
      }
      self.fd = fd
      self.identity = identity
    }

    deinit { close(fd) }
  }

  /// Says `text` on standard error, unless it was said since the path was last followed.
  private func reportAbsence(_ text: String) {
    guard reportedAbsence != text else { return }
    reportedAbsence = text
    Output.note(text)
  }

  /// Looks at the path every ``retryInterval`` until a file can be read there.
  private func retryLater() {
    guard retrying == nil, !stopped else { return }
    retrying = Timers.every(Self.retryInterval).subscribe { [unowned self] _ in
      self.retry()
    }
  }

  private func retry() {
    guard current == nil, !stopped else {
      retrying?.unsubscribe()
      retrying = nil
      return
    }
    if takeBackRotatedAwayFileAtPath() { return }
    do {
      if try followFileAtPath(at: .start) {
        Output.note("\(path) has appeared; following it from its start")
      }
    } catch {
      reportAbsence("\(error)")
    }
  }

  /// Checks that the path still names the file being read, and switches when it does not:
  /// for SIGHUP, and for events a watch can miss.
  func reopen() {
    let atPath = try? FileIdentity(path: path)
    guard !(current?.identity.matches(atPath) ?? false) else { return }
    retireCurrent(because: "reopened")
    if atPath != nil { openNew() }
    if current == nil { retryLater() }
  }

  /// How far each open file of the path was printed, rotated-away ones first, for the state
  /// file.
  var stateEntries: [StateFile.Entry] {
    (retiring.map(\.tail) + [current].compactMap { $0 }).map {
      StateFile.Entry(identity: $0.identity, position: $0.position, midLine: $0.endedMidLine)
    }
  }

  /// The tails reading the path's files now, rotated-away ones first.
  private var openTails: [FileTail] { retiring.map(\.tail) + [current].compactMap { $0 } }

  /// Reads every open file of the path to its present end, then calls `action`, on the main
  /// actor: the files that wait their turn too (after a restart, or behind a rotated-away file
  /// being read to its end), each started once the ones before it have been read, as they
  /// would have been, so that their lines come out in the same order. At once when the path
  /// is stopped. For SIGINT and SIGTERM (``Follower/drainThenStop(because:)``): a file
  /// deleted since it was opened can be read by this run only.
  func readToCurrentEnd(then action: @escaping () -> Void) {
    guard !stopped else { return action() }
    drained.append(action)
    drainWhenStarted()
  }

  /// Once no tail waits for its turn, reads each open file to its present end and calls the
  /// actions of ``readToCurrentEnd(then:)``; until then, ``startNext()`` calls it again.
  private func drainWhenStarted() {
    guard !drained.isEmpty, starting == nil, barriers == 0, waiting.isEmpty else { return }
    let actions = drained
    drained = []
    let tails = openTails
    var left = tails.count + 1
    let done = {
      left -= 1
      if left == 0 { for action in actions { action() } }
    }
    for tail in tails { tail.readToCurrentEnd(then: done) }
    done()
  }

  /// Stops watching the path for new files, and looking for one: what is open is read on.
  func stopWatching() {
    stopWatchingPath()
    retrying?.unsubscribe()
    retrying = nil
  }

  /// Stops reading every file of the path and the watch, printing their unfinished last lines
  /// when `printingUnfinishedLines`; ``stateEntries`` still describes where each file was left.
  func stop(printingUnfinishedLines: Bool = true) {
    stopped = true
    stopWatching()
    waiting = []
    starting = nil
    let actions = drained
    drained = []
    for file in retiring {
      file.timer?.unsubscribe()
      file.tail.stop(printingUnfinishedLine: printingUnfinishedLines)
    }
    current?.stop(printingUnfinishedLine: printingUnfinishedLines)
    for action in actions { action() }
  }

  // MARK: - Starting

  /// Where a file is opened.
  private enum Position {
    case lastLines(Int)
    case start
    case entry(StateFile.Entry)
  }

  /// Opens the files recorded by an earlier run: each found by its identity, at the path or
  /// beside it, at its recorded position; then the file at the path from its start, when it is
  /// none of them (it appeared since).
  private func resume(_ entries: [StateFile.Entry]) throws(FollowError) {
    let atPath = try? FileIdentity(path: path)
    for entry in entries {
      if entry.identity.matches(atPath), current == nil {
        guard try followFileAtPath(at: .entry(entry)) else { continue }
      } else if let found = Self.find(entry.identity, besides: path) {
        Output.note("\(path): reading the rest of \(found), rotated away while follow was stopped")
        guard let tail = try? openTail(found, at: .entry(entry)) else { continue }
        retire(tail)
        schedule(tail)
      } else {
        Output.note(
          "\(path): the file followed before (inode \(entry.inode)) is gone from its directory; what was appended to it after follow stopped is lost"
        )
      }
    }
    if current == nil {
      if atPath != nil, !entries.isEmpty {
        Output.note("\(path): a new file since follow stopped; reading it from its start")
      }
      if try !followFileAtPath(at: .start) { retryLater() }
    }
  }

  /// Opens `file` (or a duplicate of `descriptor`, open on it already) and positions it; the
  /// tail is not started.
  private func openTail(
    _ file: String, at position: Position, duplicating descriptor: Int32? = nil
  ) throws(FollowError) -> FileTail {
    let fd = descriptor.map { fcntl($0, F_DUPFD_CLOEXEC, 0) } ?? Self.openForReading(file)
    guard fd >= 0 else {
      throw FollowError(description: "cannot open \(file): \(String(cString: strerror(errno)))")
    }
    var info = stat()
    fstat(fd, &info)
    let identity: FileIdentity
    do {
      identity = try FileIdentity(descriptor: fd)
    } catch {
      close(fd)
      throw FollowError(description: "cannot read \(file): \(error)")
    }
    let size = Self.size(of: fd, info)
    var checkpoint = FileCheckpoint()
    var midLine = false
    switch position {
    case .start:
      break
    case .lastLines(let count):
      let offset = Self.startOfLastLines(count, of: fd, size: size)
      checkpoint = FileCheckpoint.reading(fd, at: offset) ?? FileCheckpoint(offset: offset)
    case .entry(let entry):
      (checkpoint, midLine) = Self.check(entry, of: fd, named: file, identity: identity)
    }
    lseek(fd, off_t(checkpoint.offset), SEEK_SET)
    let box = FileTailBox()
    let tail = FileTail(
      descriptor: fd, identity: identity, isRegular: info.isRegular, at: checkpoint,
      midLine: midLine,
      events: FileTail.Events(
        lines: print,
        text: printText,
        activity: { [unowned self] in
          guard let tail = box.value else { return }
          self.retiring.first { $0.tail === tail }?.lastActivity = .now
        },
        caughtUp: { [unowned self] in
          guard let tail = box.value, tail === self.starting else { return }
          self.starting = nil
          self.startNext()
        },
        truncated: { [path] rewritten in
          Output.note(
            rewritten
              ? "\(path): truncated and written again past the position read; reading it from its start"
              : "\(path): file truncated; reading it from its start")
        },
        failed: { [path] error in Output.note("\(path): \(error)") },
        counted: printed))
    box.value = tail
    return tail
  }

  /// Where to start in a file recorded by an earlier run, and whether it ended mid-line: the
  /// recorded position when the file still holds the bytes printed before it, else its start.
  private static func check(
    _ entry: StateFile.Entry, of fd: Int32, named file: String, identity: FileIdentity
  ) -> (FileCheckpoint, midLine: Bool) {
    guard entry.identity.matches(identity) else {
      Output.note("\(file): not the file recorded in the state file; reading it from its start")
      return (FileCheckpoint(), false)
    }
    guard
      let found = FileCheckpoint.reading(fd, at: entry.offset, windowLength: entry.checked)
    else {
      Output.note(
        "\(file): shorter than when follow stopped (truncated meanwhile); reading it from its start"
      )
      return (FileCheckpoint(), false)
    }
    if StateFile.Entry.hex(found.fingerprint) != entry.fingerprint {
      Output.note(
        "\(file): rewritten since follow stopped (the bytes before the recorded position changed); reading it from its start"
      )
      return (FileCheckpoint(), false)
    }
    if entry.checked == 0 && entry.offset > 0 {
      Output.note(
        "\(file): cannot tell whether it was truncated and written again since follow stopped (no bytes before the recorded position to compare); going on from the recorded position"
      )
    }
    return (found, entry.midLine)
  }

  /// Starts `tail` now, or after the tails started before it have read to their end.
  private func schedule(_ tail: FileTail) {
    waiting.append(tail)
    if starting == nil { startNext() }
  }

  /// Starts `tail`, a new file at the path, once every rotated-away file still open has been
  /// read to its present end (and the tails started before it to theirs): a writer that moved
  /// to the new file wrote its last lines to the old one before, and they come out first.
  private func scheduleAfterRotatedAway(_ tail: FileTail) {
    let rotatedAway = retiring.map(\.tail).filter(\.started)
    waiting.append(tail)
    guard !rotatedAway.isEmpty else {
      if starting == nil { startNext() }
      return
    }
    barriers += 1
    var left = rotatedAway.count
    for old in rotatedAway {
      old.readToCurrentEnd { [unowned self] in
        left -= 1
        guard left == 0 else { return }
        self.barriers -= 1
        self.startNext()
      }
    }
  }

  private func startNext() {
    while starting == nil, barriers == 0, !stopped, !waiting.isEmpty {
      let tail = waiting.removeFirst()
      // Set before the start: a file read to its end within `start` (its first chunk is read
      // there, and may be delivered in the same call) says so before `start` returns.
      starting = tail
      do {
        try tail.start()
      } catch {
        if starting === tail { starting = nil }
        Output.note("\(path): \(error)")
      }
    }
    drainWhenStarted()
  }

  // MARK: - Rotation

  /// What the watch says of the path, checked against the path as it is now: changes are taken
  /// in after the fact, and several at once on a loaded machine, so a change may be of a file
  /// that came and went since the one being read (a file made, then deleted, then another made:
  /// the deletion is not of the file at the path). While the path still names the file being
  /// read, no change moves it.
  ///
  /// A file that appeared, opened when its creation was read (`opened`), is followed even when
  /// it has left the path since (its rename comes next, and retires it): unless it is a file
  /// being read already. So is one that left before its creation was read, which the watch
  /// reports by its rename alone: `opened` where the rename put it, it is read whole, as a
  /// file rotated away, after those rotated away before it.
  private func pathChanged(_ change: FileChange, opened: OpenedFile? = nil) {
    switch change {
    case .renamed, .deleted:
      // A file that left the path before this run read it is read whole where it went, as a
      // file rotated away: one that lived there between two reads of its events (its creation
      // was not reported: it had left already), or one that left while its creation was being
      // taken in, so that the file opened then was the one after it.
      let unread = opened.flatMap { opened in
        openTails.contains { $0.identity.matches(opened.identity) } ? nil : opened
      }
      let reason = change == .deleted ? "deleted" : "renamed"
      guard !currentIsAtPath else {
        // The file at the path is read already: its lines come before the unread file's.
        if let unread { readLeftBehind(unread) }
        return
      }
      retireCurrent(because: reason)
      if let unread { readLeftBehind(unread) }
      retryLater()
    case .replaced, .created:
      if let opened, !openTails.contains(where: { $0.identity.matches(opened.identity) }) {
        retireCurrent(because: "replaced")
        return openNew(opened, appeared: reportedAbsence != nil)
      }
      // Not opened (gone again already), or a file being read: one that was moved back is
      // taken back if it is at the path now.
      guard !currentIsAtPath else { return }
      retireCurrent(because: "replaced")
      openNew()
    case .modified:
      current?.modified()
    case .attributes:
      break
    }
  }

  /// Whether the path names the file being read now.
  private var currentIsAtPath: Bool {
    guard let current else { return false }
    return current.identity.matches(try? FileIdentity(path: path))
  }

  /// Makes a rotated-away file that is at the path again (moved back) the one being read,
  /// rather than opening it a second time from its start: whether there was one.
  private func takeBackRotatedAwayFileAtPath() -> Bool {
    guard let atPath = try? FileIdentity(path: path),
      let index = retiring.firstIndex(where: { $0.tail.identity.matches(atPath) })
    else { return false }
    let file = retiring.remove(at: index)
    file.timer?.unsubscribe()
    current = file.tail
    // The path's changes (the next rotation), which a path that had no file may not watch yet.
    if watching == nil { try? watchPath() }
    reportedAbsence = nil
    retrying?.unsubscribe()
    retrying = nil
    Output.note("\(path): the old file is back at the path; reading on")
    return true
  }

  /// Opens the new file at the path, told by the path's watch, which watches it already; or
  /// follows `opened`, the file that the watch opened when it appeared there.
  ///
  /// `appeared`: the path had no file to read before this one, as ``retry()`` says too.
  private func openNew(_ opened: OpenedFile? = nil, appeared: Bool = false) {
    guard !stopped, opened != nil || !takeBackRotatedAwayFileAtPath() else { return }
    // A link whose target was made after the watch saw the link: the watch followed it to
    // nothing, and would not see the target's changes. (Unsubscribing the watch from its own
    // delivery is allowed.)
    var link = stat()
    if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK { try? watchPath() }
    do {
      let tail = try openTail(path, at: .start, duplicating: opened?.fd)
      current = tail
      scheduleAfterRotatedAway(tail)
      reportedAbsence = nil
      retrying?.unsubscribe()
      retrying = nil
      Output.note(
        appeared
          ? "\(path) has appeared; following it from its start"
          : "\(path): following the new file")
    } catch {
      // Gone again before it could be opened, or a dangling link: looked at again until there
      // is a file (the watch may not see it: a link's target is made elsewhere).
      current = nil
      reportAbsence("\(error); following it once it appears")
      retryLater()
    }
  }

  private func retireCurrent(because reason: String) {
    guard let tail = current else { return }
    current = nil
    guard rotateWait > .zero else {
      stop(tail)
      Output.note("\(path): \(reason); closed the old file")
      return
    }
    Output.note(
      "\(path): \(reason); reading the old file until it is quiet for \(Options.text(of: rotateWait))"
    )
    retire(tail)
  }

  /// Reads `file`, which was renamed away from the path before this run read it, from its
  /// start, as a rotated-away file: after the files rotated away before it, until it has been
  /// read to its end and quiet for `rotateWait`.
  private func readLeftBehind(_ file: OpenedFile) {
    guard !stopped else { return }
    let tail: FileTail
    do {
      tail = try openTail(path, at: .start, duplicating: file.fd)
    } catch {
      return Output.note("\(path): \(error); a file that was there briefly is not read")
    }
    scheduleAfterRotatedAway(tail)
    Output.note(
      "\(path): a file that was there briefly was renamed before it was read; reading it "
        + "until it is quiet for \(Options.text(of: rotateWait))")
    retire(tail)
  }

  /// Keeps `tail` until it has been quiet for `rotateWait`.
  private func retire(_ tail: FileTail) {
    do {
      try tail.watchByDescriptor()
    } catch {
      Output.note("\(path): \(error); the old file is read no more")
    }
    let file = Retiring(tail: tail)
    retiring.append(file)
    scheduleCheck(file, after: rotateWait)
  }

  /// Closes `file` once it has been quiet for `rotateWait` and has been read to its end,
  /// checking again when it has not.
  private func scheduleCheck(_ file: Retiring, after delay: Duration) {
    file.timer = Timers.after(delay).subscribe { [unowned self, unowned file] _ in
      let quiet = ContinuousClock.now - file.lastActivity
      let reading = file.tail === self.starting || self.waiting.contains { $0 === file.tail }
      if quiet >= self.rotateWait && !reading {
        self.stop(file.tail)
        self.retiring.removeAll { $0 === file }
        Output.note("\(self.path): closed the old file")
      } else {
        self.scheduleCheck(file, after: max(self.rotateWait - quiet, .milliseconds(100)))
      }
    }
  }

  /// Stops `tail`, and lets the next tail start if it was waiting for this one.
  private func stop(_ tail: FileTail) {
    tail.stop()
    waiting.removeAll { $0 === tail }
    if starting === tail { starting = nil }
    startNext()
  }

  // MARK: - Files

  /// Opens `path` to read it, waiting for nothing; the descriptor, or -1 with `errno` set.
  ///
  /// The file is read without stamping its access time (`O_NOATIME`) where the system allows
  /// it: a file of the user's, or any file for root. Under `relatime`, the default mount
  /// option, every read of a file written since the one before stamps it, so following a log
  /// wrote its inode back at each line. For a file of another user the system refuses
  /// (`EPERM`), and the file is opened as `tail` opens it.
  ///
  /// A named pipe is opened for reading and writing (Linux opens a pipe so at once, with no
  /// writer), so it never reads as ended between two writers: the next writer's lines come
  /// after the last one's, as `tail -F` prints them, and a writer always finds a reader. (Read
  /// only, the open waited for a writer, holding up the main thread, and the first writer's
  /// close ended the pipe's stream.) Anything else is opened read only, its reads waiting as a
  /// plain `open` makes them.
  nonisolated static func openForReading(_ path: String) -> Int32 {
    let fd = openLeavingAccessTime(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return fd }
    var info = stat()
    guard fstat(fd, &info) == 0, info.isPipe else {
      // Reads of a regular file never wait either way; a device's or a terminal's would not.
      if !info.isRegular { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
      return fd
    }
    // The same pipe, for both (the path may name another file by now: then this one is read).
    let both = openLeavingAccessTime(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
    var bothInfo = stat()
    guard both >= 0, fstat(both, &bothInfo) == 0, bothInfo.st_dev == info.st_dev,
      bothInfo.st_ino == info.st_ino
    else {
      if both >= 0 { close(both) }
      return fd
    }
    close(fd)
    return both
  }

  /// `open(path, flags)`, with `O_NOATIME` where the system allows it (see
  /// ``openForReading(_:)``), and without where it refuses.
  private nonisolated static func openLeavingAccessTime(_ path: String, _ flags: Int32) -> Int32 {
    #if os(Linux)
      // Glibc's module leaves out O_NOATIME (it is _GNU_SOURCE's): asm-generic's value, that of
      // every architecture Swift runs on.
      let fd = open(path, flags | 0o1_000_000)
      guard fd < 0, errno == EPERM else { return fd }
    #endif
    return open(path, flags)
  }

  /// `path`, absolute and without `.` or `..` components.
  static func absolute(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
  }

  /// The file with `identity` in the directory of `path`, if there is one.
  static func find(_ identity: FileIdentity, besides path: String) -> String? {
    let directory = (absolute(path) as NSString).deletingLastPathComponent
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return nil
    }
    for name in names.sorted() {
      let file = (directory as NSString).appendingPathComponent(name)
      if identity.matches(try? FileIdentity(path: file)) { return file }
    }
    return nil
  }

  /// The most bytes ``size(of:_:)`` reads to find where a file whose size reads 0 ends.
  static let longestMeasuredFile: Int64 = 64 << 20

  /// Where the file `fd`, described by `info`, ends: its size, or, for a regular file whose size
  /// reads 0 (a `/proc` or `/sys` file, whose content is made anew at each read), how many bytes
  /// a read from its start gives, up to ``longestMeasuredFile``. That is where `-n 0` starts it,
  /// and where `-n N` counts its last lines back from, as for any other file.
  static func size(of fd: Int32, _ info: stat) -> Int64 {
    let size = Int64(info.st_size)
    guard info.isRegular, size == 0 else { return size }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var measured: Int64 = 0
    while measured < longestMeasuredFile {
      let read = buffer.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress, $0.count, off_t(measured))
      }
      if read < 0 && errno == EINTR { continue }
      guard read > 0 else { break }
      measured += Int64(read)
    }
    return min(measured, longestMeasuredFile)
  }

  /// The offset where the last `count` lines of the file `fd` start, found by reading backwards
  /// from `size`, a block at a time, with `LineSplitter.lineStarts(backwardsIn:upTo:endsInput:)`
  /// (lines end at LF, as the splitter that prints them says; a last line without one counts):
  /// `-n 10` on a log of gigabytes reads its last blocks, as `tail` does.
  static func startOfLastLines(_ count: Int, of fd: Int32, size: Int64) -> Int64 {
    guard count > 0, size > 0 else { return size }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var end = size
    var left = count
    while end > 0 {
      let start = max(0, end - Int64(buffer.count))
      let wanted = Int(end - start)
      let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(start)) }
      // Shorter than it was a moment ago: start from the start.
      guard read == wanted else { return 0 }
      let (found, earliest) = buffer.withUnsafeBytes {
        LineSplitter.lineStarts(
          backwardsIn: UnsafeRawBufferPointer(rebasing: $0[..<read]), upTo: left,
          endsInput: end == size)
      }
      left -= found
      if left == 0, let earliest { return start + Int64(earliest) }
      end = start
    }
    return 0
  }
}

/// Lets a tail's callbacks refer to the tail they belong to, which is made after them.
///
/// Only the tail calls them, so it is alive whenever they read the box: the reference is
/// `unowned`, not `weak`. (A weak reference would give the tail a side table for good, which
/// makes every later retain and release of it the runtime's slow path, about 130 instructions a
/// line; and a tail alive at exit would keep a side table that LeakSanitizer cannot see, once
/// the weak reference is gone.)
private final class FileTailBox {
  unowned var value: FileTail?
}
