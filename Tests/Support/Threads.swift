import Foundation
import Testing

/// Runs `body(thread)` for `thread` in `0..<count`, each on a new thread of its own, all
/// released at the same moment, and waits for them to finish.
///
/// `DispatchQueue.concurrentPerform` runs no more iterations at once than there are processors
/// (two on CI), so it cannot make eight threads race; these threads are all runnable at once
/// and preempt one another wherever the scheduler decides.
///
/// A deadlock or livelock fails the test instead of hanging the run: when the threads have not
/// all finished within `timeLimit`, an issue is recorded and this returns false, leaving them
/// behind.
@discardableResult
public func runOnThreads(
  _ count: Int,
  timeLimit: Duration = .seconds(120),
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: @escaping @Sendable (_ thread: Int) -> Void
) -> Bool {
  let start = StartLine(threads: count)
  let finished = DispatchGroup()
  for index in 0..<count {
    finished.enter()
    let thread = Thread {
      start.arriveAndWait()
      body(index)
      finished.leave()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
  let (seconds, attoseconds) = timeLimit.components
  let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
  guard finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
    Issue.record(
      "\(count) threads did not finish within \(timeLimit): a deadlock or a livelock",
      sourceLocation: sourceLocation)
    return false
  }
  return true
}

/// Holds threads until all of them have arrived, then releases them together.
///
/// `@unchecked Sendable`: `waiting` is read and written only under `condition`'s lock.
private final class StartLine: @unchecked Sendable {
  private let condition = NSCondition()
  private var waiting: Int

  init(threads: Int) {
    waiting = threads
  }

  func arriveAndWait() {
    condition.lock()
    defer { condition.unlock() }
    waiting -= 1
    if waiting == 0 {
      condition.broadcast()
    } else {
      while waiting > 0 { condition.wait() }
    }
  }
}
