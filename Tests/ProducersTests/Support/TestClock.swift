import IndefiniteObservable
import TestSupport
import Testing

/// A clock that moves only when a test says so: `advance(by:)` wakes the sleepers whose
/// deadline it passes, earliest first, and lets each woken task run before it wakes the next.
/// No test that uses it waits on real time for its clock's time (``settle()`` waits a few
/// milliseconds for the tasks themselves).
///
/// A task's call of `sleep` reaches the clock only after a hop to the global executor, which a
/// loaded machine may run at any later time; so an `advance` that must wake a task first waits
/// for its sleep with ``waitForSleepers(_:seconds:sourceLocation:)``, and an expectation that a
/// woken task did something waits for it (`eventually`). ``settle()`` is for expectations that
/// something did not happen.
final class TestClock: Clock, Sendable {
  /// A point on the test clock: a duration since the clock was made.
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let wake: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextID = 0
    /// Sleeps cancelled before their continuation was registered.
    var cancelled: Set<Int> = []
    /// Calls of `sleep` that have reached the clock, for `settle` to see when they stop coming.
    var calls = 0
  }

  private let state = LockedState(State())

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

  /// How many tasks sleep on this clock.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Suspends until at least `count` tasks sleep on this clock (their calls of `sleep` reached
  /// it), for at most `seconds` of real time, a bound that only keeps a broken test from
  /// hanging; records an issue at `sourceLocation` if they did not. Call it before an `advance`
  /// that must wake a task: `advance` wakes only the sleeps that have reached the clock.
  func waitForSleepers(
    _ count: Int, seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let reached = await eventually(seconds: seconds) { self.sleeperCount >= count }
    if !reached {
      Issue.record(
        "\(count) sleeper(s) expected on the test clock, \(sleeperCount) after \(seconds) s",
        sourceLocation: sourceLocation)
    }
  }

  func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          state.calls += 1
          if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: wake))
          return nil
        }
        if let outcome { wake.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper: Sleeper? = state.withLock { state in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.sleepers.remove(at: index)
      }
      sleeper?.wake.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock forward by `duration`: each sleeper whose deadline is passed wakes, the
  /// earliest first (in the order they slept, for equal deadlines), with the clock set to its
  /// deadline, and the tasks woken run before the next one wakes and before this returns.
  ///
  /// "Run" is as far as ``settle()`` can tell: a sleep that has not reached the clock yet is not
  /// woken (wait for it first with ``waitForSleepers(_:seconds:sourceLocation:)``), and a woken
  /// task's next sleep that reaches the clock only after this returned finds its deadline passed
  /// and returns at once.
  func advance(by duration: Duration) async {
    let target = now.advanced(by: duration)
    while true {
      let due: Sleeper? = state.withLock { state in
        let earliest = state.sleepers.indices.min { a, b in
          state.sleepers[a].deadline < state.sleepers[b].deadline
        }
        guard let index = earliest, state.sleepers[index].deadline <= target else {
          state.now = target
          return nil
        }
        state.now = max(state.now, state.sleepers[index].deadline)
        return state.sleepers.remove(at: index)
      }
      guard let due else { break }
      due.wake.resume()
      await settle()
    }
    await settle()
  }

  /// Moves the clock forward by `duration` and wakes every sleeper it passes at once, before
  /// any of them runs: for tests of what a task does when something happened between its wake
  /// and its turn on the actor.
  func advanceWakingAllAtOnce(by duration: Duration) async {
    let due: [Sleeper] = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.wake.resume() }
    await settle()
  }

  /// Lets tasks that were woken, or that a test's action started, run up to their next
  /// suspension: each round trip through a background task lets every job already queued run.
  ///
  /// A task's call of `sleep` reaches the clock only after a hop to the global executor, which
  /// a busy machine (a sanitizer, other tests) may run later than the round trips: so this also
  /// waits until no call has reached the clock for 30 ms of real time. That only ever waits for
  /// what the tasks do by themselves; it never stands in for the test clock's time. It is still
  /// a guess: a test that needs a task to have done something waits for that instead.
  func settle() async {
    var calls = state.withLock { $0.calls }
    var quietSince = ContinuousClock.now
    while true {
      for _ in 0..<10 {
        await Task.detached(priority: .background) { await Task.yield() }.value
      }
      let now = state.withLock { $0.calls }
      if now != calls {
        calls = now
        quietSince = .now
      } else if ContinuousClock.now - quietSince >= .milliseconds(30) {
        return
      }
    }
  }

}
