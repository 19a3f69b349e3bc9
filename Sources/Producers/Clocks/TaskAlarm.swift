import IndefiniteObservable
import Multicast

/// An ``Alarm`` of a clock that is neither Dispatch's nor a ``ManualClock``: a task on the
/// actor that sleeps on the clock until each deadline, made anew by each arming (with no actor,
/// for a `@Sendable` gate, a task on the global executor, where the gate's closure then runs).
final class TaskAlarm<C: Clock<Duration>>: Alarm {
  private let clock: C
  private let tolerance: Duration?
  private let isolation: (any Actor)?
  private let gate: ObserverGate<Tick>
  private let fires = FireCount()
  // The task that waits for the next deadline, and whether the alarm was cancelled.
  private let state = LockedState<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

  init(clock: C, leeway: Duration, isolation: (any Actor)?, gate: ObserverGate<Tick>) {
    self.clock = clock
    self.tolerance = leeway > .zero ? clampedInterval(leeway) : nil
    self.isolation = isolation
    self.gate = gate
  }

  func arm(after delay: Duration, repeating interval: Duration?) {
    // The first deadline is taken now: the task may start after the clock moved on.
    let deadline = clock.now.advanced(by: clampedInterval(delay))
    let task = Task { [clock, tolerance, gate, fires, isolation] in
      await Self.wait(
        clock: clock, until: deadline, interval: interval, tolerance: tolerance, gate: gate,
        fires: fires, on: isolation)
    }
    let replaced = state.withLock { state -> Task<Void, Never>? in
      guard !state.cancelled else { return task }
      defer { state.task = task }
      return state.task
    }
    replaced?.cancel()
  }

  var isCancelled: Bool { gate.isClosed }

  func cancel() {
    gate.close()
    state.withLock { state in
      state.cancelled = true
      return state.task.take()
    }?.cancel()
  }

  /// Sleeps on `clock` until each deadline and fires, on `actor` (or, with none, on the global
  /// executor), until cancelled.
  private static func wait(
    clock: C, until first: C.Instant, interval: Duration?, tolerance: Duration?,
    gate: ObserverGate<Tick>, fires: FireCount, on actor: isolated (any Actor)?
  ) async {
    var deadline = first
    while true {
      do { try await clock.sleep(until: deadline, tolerance: tolerance) } catch { return }
      guard gate.send(fires.tick()) else { return }
      guard let interval else { return }
      deadline = deadline.advanced(by: clampedInterval(interval))
    }
  }
}
