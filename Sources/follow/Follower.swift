import Dispatch
import IndefiniteObservable
import Multicast
import Producers

/// The whole of `follow`: a ``FollowedPath`` per file, a heartbeat timer, and the signals that
/// reload (SIGHUP) and stop it (SIGINT, SIGTERM), all delivering on one serial queue.
///
/// Confined to its queue: it is started there (``start()``) and every stream it subscribes to
/// delivers there.
final class Follower {
  private let options: Options
  private let queue: DispatchQueue
  private var paths: [FollowedPath] = []
  private var subscriptions: [Subscription] = []
  private var sawLineSinceTick = false
  private let output: (_ path: String, _ line: String) -> Void
  private let onStop: () -> Void

  /// - Parameters:
  ///   - output: Receives each line with the path it was followed under; prints it by default.
  ///   - onStop: Called on the queue once the follower stopped, after its summary.
  init(
    options: Options,
    queue: DispatchQueue,
    output: ((_ path: String, _ line: String) -> Void)? = nil,
    onStop: @escaping () -> Void
  ) {
    self.options = options
    self.queue = queue
    let labelled = options.paths.count > 1
    self.output = output ?? { path, line in Output.line(labelled ? "\(path): \(line)" : line) }
    self.onStop = onStop
  }

  /// Starts following every path; throws the first one that cannot be followed, having
  /// released the others.
  func start() throws {
    for path in options.paths {
      let followed: FollowedPath
      do {
        followed = try FollowedPath(path: path, rotateWait: options.rotateWait, queue: queue) {
          [unowned self] line in
          self.sawLineSinceTick = true
          self.output(path, line)
        }
      } catch {
        stopFollowing()
        throw error
      }
      paths.append(followed)
    }
    if let heartbeat = options.heartbeat {
      subscriptions.append(
        try Timers.every(heartbeat, on: queue).subscribe { [unowned self] _ in
          if !self.sawLineSinceTick { Output.line("-- idle \(heartbeat)") }
          self.sawLineSinceTick = false
        })
    }
    subscriptions.append(
      try Signals.deliveries(of: .hangup, on: queue).subscribe { [unowned self] _ in
        Output.note("SIGHUP: reopening")
        for path in self.paths { path.reopen() }
      })
    subscriptions.append(
      try Signals.deliveries(of: .interrupt, .terminate, on: queue).subscribe {
        [unowned self] signal in
        self.stop(because: "\(signal)")
      })
    Output.note("following \(options.paths.joined(separator: ", "))")
  }

  /// Lines printed per path, in the order the paths were given.
  var lineCounts: [(path: String, lines: Int)] {
    paths.map { ($0.path, $0.lineCount) }
  }

  /// Stops everything, prints the summary and calls `onStop`.
  func stop(because reason: String) {
    stopFollowing()
    let counts = lineCounts.map { "\($0.lines) from \($0.path)" }.joined(separator: ", ")
    Output.note("stopped by \(reason): \(counts.isEmpty ? "no files" : "lines " + counts)")
    onStop()
  }

  private func stopFollowing() {
    for subscription in subscriptions { subscription.unsubscribe() }
    subscriptions = []
    for path in paths { path.stop() }
  }
}
