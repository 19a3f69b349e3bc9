import IndefiniteObservable
import Multicast

/// A clock that moves only when told to: for tests of timers and time-based operators that run
/// in no real time.
///
/// Pass it where a stream takes a clock (``Timers/every(_:leeway:clock:isolation:)``,
/// `debounce(for:clock:)`, `throttle(for:clock:latest:)`, `delay(for:clock:)`,
/// `delaySubscription(for:clock:)`), then call ``advance(by:isolation:)``: every timer, every
/// waiting value and every waiting connection whose deadline the advance passes fires, earliest
/// first, with ``now`` set to its deadline, and its delivery runs on the subscriber's actor,
/// before `advance` returns.
///
/// ```swift
/// let clock = ManualClock()
/// var ticks: [Int] = []
/// let subscription = Timers.every(.seconds(1), clock: clock).subscribe { ticks.append($0.index) }
/// await clock.advance(by: .seconds(3))
/// print(ticks)  // [1, 2, 3]
/// subscription.unsubscribe()
/// ```
///
/// - Threading: `Sendable`; any thread or actor may read ``now`` and advance it. An advance
///   hops to each subscriber's actor in turn (no hop when it is the caller's), so call it with
///   `await` and let it return before the next one: two advances at once interleave their fires.
/// - Order: fires of equal deadlines run in the order they were armed. A delivery that arms a
///   new deadline within the advance (a repeating timer's next tick, a newer debounced value)
///   fires in the same advance.
/// - Tasks: ``sleep(until:tolerance:)`` works as a `Clock`'s must, but a task that sleeps
///   wakes during the advance and runs after it, whenever its executor runs it: code that must
///   be done when `advance` returns is written with this module's streams, not with a sleep.
/// - Costs nothing while nobody advances it; no thread, no Dispatch source.
public final class ManualClock: Clock, Sendable {
  /// A point on a manual clock: the time advanced since the clock was made.
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// The time from the clock's start to this instant.
    public var offset: Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant `duration` after this one.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

    /// The time from this instant to `other` (negative when `other` is earlier).
    public func duration(to other: Instant) -> Duration { other.offset - offset }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

    /// The offset, as `Duration` prints it.
    public var description: String { "\(offset)" }
  }

  /// What runs at a deadline: an alarm's fire, on its actor, or a sleeping task's wake.
  private enum Work {
    // The gate, its actor (nil for a `@Sendable` gate) and the alarm's count of fires.
    case fire(ObserverGate<Tick>, on: (any Actor)?, FireCount, repeating: Duration?)
    case wake(CheckedContinuation<Void, any Error>)
  }

  private struct Entry {
    var deadline: Instant
    var order: Int
    var work: Work
  }

  private struct State {
    var now = Instant(offset: .zero)
    // Keyed by an alarm's or a sleep's number; the earliest is found by a scan, which a test
    // clock with a few entries can afford.
    var entries: [Int: Entry] = [:]
    var nextNumber = 0
    var cancelledSleeps: Set<Int> = []

    mutating func number() -> Int {
      nextNumber += 1
      return nextNumber
    }

    /// Removes and returns the earliest entry due at `target`, with the clock set to its
    /// deadline; nil when none is due.
    mutating func takeDue(at target: Instant) -> (key: Int, entry: Entry)? {
      let earliest = entries.min { a, b in
        (a.value.deadline, a.value.order) < (b.value.deadline, b.value.order)
      }
      guard let earliest, earliest.value.deadline <= target else { return nil }
      entries[earliest.key] = nil
      now = max(now, earliest.value.deadline)
      return (earliest.key, earliest.value)
    }
  }

  private let state = LockedState(State())

  /// A clock at its start: ``now`` is `Instant(offset: .zero)` until it is advanced.
  public init() {}

  /// The clock's time: its start plus every advance so far.
  public var now: Instant { state.withLock { $0.now } }

  /// Zero: the clock moves by exactly the durations it is advanced by.
  public var minimumResolution: Duration { .zero }

  /// How many timers and waiting values (armed alarms) and sleeping tasks wait for a deadline.
  public var pendingCount: Int { state.withLock { $0.entries.count } }

  /// Moves the clock forward by `duration` (nothing for zero or less), running what became due,
  /// earliest first: each fire is delivered on its subscriber's actor before the next one, and
  /// all of them before this returns.
  ///
  /// - Parameters:
  ///   - duration: How far to move the clock.
  ///   - isolation: The caller's actor, which the compiler passes; a fire for that actor runs
  ///     without a hop.
  public func advance(by duration: Duration, isolation: isolated (any Actor)? = #isolation) async {
    let target = now.advanced(by: max(duration, .zero))
    while let due = state.withLock({ $0.takeDue(at: target) }) {
      let (key, entry) = due
      switch entry.work {
      case .wake(let continuation):
        continuation.resume()
      case .fire(let gate, let actor, let fires, let interval):
        if let interval {
          state.withLock { state in
            // Re-armed for the next fire unless the delivery below re-arms or cancels it.
            state.entries[key] = Entry(
              deadline: entry.deadline.advanced(by: interval), order: state.number(),
              work: entry.work)
          }
        }
        if let actor {
          await Self.fire(gate, fires.tick(), on: actor)
        } else {
          gate.send(fires.tick())  // a `@Sendable` gate: runs on this thread
        }
      }
    }
    state.withLock { $0.now = max($0.now, target) }
  }

  /// Sends `tick` to `gate` on `actor`: the gate's closure runs now, since this is isolated to
  /// the gate's actor.
  private static func fire(_ gate: ObserverGate<Tick>, _ tick: Tick, on actor: isolated any Actor) {
    gate.send(tick)
  }

  /// Suspends until the clock reaches `deadline` (at once when it has), or throws
  /// `CancellationError` when the task is cancelled first.
  ///
  /// The task wakes during the ``advance(by:isolation:)`` that passes `deadline` and runs when
  /// its executor runs it, which may be after that advance returned.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let key = state.withLock { $0.number() }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if state.cancelledSleeps.remove(key) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.entries[key] = Entry(deadline: deadline, order: state.number(), work: .wake(wake))
          return nil
        }
        if let outcome { wake.resume(with: outcome) }
      }
    } onCancel: {
      let entry = state.withLock { state -> Entry? in
        let entry = state.entries.removeValue(forKey: key)
        // Not waiting yet: the sleep finds itself cancelled when it would start to wait.
        if entry == nil { state.cancelledSleeps.insert(key) }
        return entry
      }
      if case .wake(let continuation) = entry?.work {
        continuation.resume(throwing: CancellationError())
      }
    }
  }

  /// An alarm of this clock, firing `gate` on `isolation` (nil: on the advancing thread).
  func alarm(isolation: (any Actor)?, gate: ObserverGate<Tick>) -> any Alarm {
    ManualAlarm(clock: self, key: state.withLock { $0.number() }, isolation: isolation, gate: gate)
  }

  /// Puts `alarm` at `delay` after now, or takes it off (`delay` nil).
  fileprivate func set(
    _ key: Int, after delay: Duration?, repeating interval: Duration?, gate: ObserverGate<Tick>,
    on actor: (any Actor)?, fires: FireCount
  ) {
    state.withLock { state in
      guard let delay else {
        state.entries[key] = nil
        return
      }
      state.entries[key] = Entry(
        deadline: state.now.advanced(by: clampedInterval(delay)), order: state.number(),
        work: .fire(gate, on: actor, fires, repeating: interval.map(clampedInterval)))
    }
  }
}

/// An ``Alarm`` of a ``ManualClock``: an entry in the clock's queue of due work.
private final class ManualAlarm: Alarm {
  private let clock: ManualClock
  private let key: Int
  // The gate's actor; nil for a `@Sendable` gate, fired on the advancing thread.
  private let isolation: (any Actor)?
  private let gate: ObserverGate<Tick>
  private let fires = FireCount()

  init(clock: ManualClock, key: Int, isolation: (any Actor)?, gate: ObserverGate<Tick>) {
    self.clock = clock
    self.key = key
    self.isolation = isolation
    self.gate = gate
  }

  func arm(after delay: Duration, repeating interval: Duration?) {
    clock.set(
      key, after: delay, repeating: interval, gate: gate, on: isolation, fires: fires)
  }

  var isCancelled: Bool { gate.isClosed }

  func cancel() {
    gate.close()
    clock.set(key, after: nil, repeating: nil, gate: gate, on: isolation, fires: fires)
  }
}
