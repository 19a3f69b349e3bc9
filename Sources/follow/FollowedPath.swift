import Dispatch
import IndefiniteObservable
import Multicast
import Producers

/// One path given to `follow`, across rotations: the file at the path now (`current`), and the
/// files rotated away from it that are still being read until they go quiet (`retiring`).
///
/// A watch of the path says when the name is renamed away, deleted, created or replaced; each
/// open file is read by its own ``FileTail``; a one-shot timer per retiring file closes it once
/// nothing was appended to it for `rotateWait`.
///
/// Confined to the follow queue: every stream it subscribes to delivers there.
final class FollowedPath {
  let path: String
  /// Lines printed from this path's files, old and new together.
  private(set) var lineCount = 0

  private let queue: DispatchQueue
  private let rotateWait: Duration
  private let print: (String) -> Void
  private var watching: Subscription?
  private var current: FileTail?
  private var retiring: [Retiring] = []

  /// A rotated-away file, read until it has been quiet for `rotateWait`.
  private final class Retiring {
    let tail: FileTail
    var lastActivity = ContinuousClock.now
    var timer: Subscription?
    init(tail: FileTail) { self.tail = tail }
  }

  /// Starts following `path` from the end of the file there now.
  ///
  /// - Parameter print: Receives each line of the path's files, on `queue`.
  init(
    path: String,
    rotateWait: Duration,
    queue: DispatchQueue,
    print: @escaping (String) -> Void
  ) throws(FollowError) {
    self.path = path
    self.queue = queue
    self.rotateWait = rotateWait
    self.print = print
    if case let info? = FileIdentity.status(path: path), info.isDirectory {
      throw FollowError(description: "cannot follow \(path): it is a directory")
    }
    let changes: ValueObservable<FileChange>
    do {
      changes = try FileWatch.changes(at: path, on: queue)
    } catch {
      throw FollowError(description: "\(error)")
    }
    current = try open(fromStart: false)
    watching = changes.subscribe { [unowned self] change in self.pathChanged(change) }
  }

  /// Checks that the path still names the file being read, and switches when it does not:
  /// for SIGHUP, and for events a watch can miss.
  func reopen() {
    let atPath = FileIdentity(path: path)
    guard atPath != current?.identity else { return }
    retireCurrent(because: "reopened")
    if atPath != nil { openNew() }
  }

  /// Stops reading every file of the path and the watch.
  func stop() {
    watching?.unsubscribe()
    current?.stop()
    current = nil
    for file in retiring {
      file.timer?.unsubscribe()
      file.tail.stop()
    }
    retiring = []
  }

  private func pathChanged(_ change: FileChange) {
    switch change {
    case .renamed, .deleted:
      retireCurrent(because: "\(change)")
    case .replaced:
      retireCurrent(because: "replaced")
      openNew()
    case .created:
      if current == nil || FileIdentity(path: path) != current?.identity {
        retireCurrent(because: "replaced")
        openNew()
      }
    case .modified, .attributes:
      break
    }
  }

  private func open(fromStart: Bool) throws(FollowError) -> FileTail {
    let tail = FileTailBox()
    let file = try FileTail(
      path: path, fromStart: fromStart, queue: queue,
      line: { [unowned self] line in
        self.lineCount += 1
        self.print(line)
      },
      activity: { [unowned self] in
        guard let tail = tail.value else { return }
        self.retiring.first { $0.tail === tail }?.lastActivity = .now
      },
      status: { [path] status in
        switch status {
        case .truncated: Output.note("\(path): file truncated; reading it from its start")
        case .failed(let error): Output.note("\(path): \(error)")
        case .endOfFile: break
        }
      })
    tail.value = file
    return file
  }

  private func openNew() {
    do {
      current = try open(fromStart: true)
      Output.note("\(path): following the new file")
    } catch {
      // Gone again before it could be opened: the watch reports the next file to appear.
      current = nil
    }
  }

  private func retireCurrent(because reason: String) {
    guard let tail = current else { return }
    current = nil
    guard rotateWait > .zero else {
      tail.stop()
      Output.note("\(path): \(reason); closed the old file")
      return
    }
    Output.note("\(path): \(reason); reading the old file until it is quiet for \(rotateWait)")
    let file = Retiring(tail: tail)
    retiring.append(file)
    scheduleCheck(file, after: rotateWait)
  }

  /// Closes `file` once it has been quiet for `rotateWait`, checking again when it was not.
  private func scheduleCheck(_ file: Retiring, after delay: Duration) {
    file.timer = try? Timers.after(delay, on: queue).subscribe { [unowned self, unowned file] _ in
      let quiet = ContinuousClock.now - file.lastActivity
      if quiet >= self.rotateWait {
        file.tail.stop()
        self.retiring.removeAll { $0 === file }
        Output.note("\(self.path): closed the old file")
      } else {
        self.scheduleCheck(file, after: self.rotateWait - quiet)
      }
    }
  }
}

/// Lets a tail's callbacks refer to the tail they belong to, which is made after them.
private final class FileTailBox {
  weak var value: FileTail?
}
