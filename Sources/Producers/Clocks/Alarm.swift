import IndefiniteObservable
import Multicast
import Synchronization

/// Calls a closure on an actor (or where it fires) at deadlines of a clock: the one timer
/// mechanism of this module, behind ``Timers``, `debounce`, `throttle`, `delay`,
/// `delaySubscription` and the file watch's directory checks.
///
/// An alarm is made for one clock, one actor and one closure
/// (``makeAlarm(clock:leeway:isolation:_:)``), and then armed and re-armed as often as its owner
/// needs; each fire sends a ``Tick`` (its count of fires so far, and how many it stands for: more
/// than 1 when Dispatch merged fires of a repeating alarm whose queue was late) through an
/// `ObserverGate`: one bound to the actor, or a `@Sendable` one that runs where the alarm fires
/// (`Timers`' `.sendingThread` form). Three kinds, picked by the clock:
///
/// - `ContinuousClock` and `SuspendingClock`: a `DispatchSourceTimer` (``DispatchAlarm``): one
///   thread switch per fire, from the timer's queue to the actor, as a bare Dispatch timer that
///   hands its fires to an actor; a `@Sendable` gate runs on the timer's queue.
/// - ``ManualClock``: an entry in the clock's queue of due work, which `advance(by:)` runs on
///   the actor before it returns (a `@Sendable` gate: on the advancing task's thread).
/// - Any other clock: a task on the actor that sleeps on the clock (``TaskAlarm``; with no actor,
///   a task on the global executor).
@usableFromInline
protocol Alarm: Sendable {
  /// Fires `delay` after now on the alarm's clock (at once for zero or less), then every
  /// `interval` when one is given; replaces any arming before. Call it on the alarm's actor
  /// or from the alarm's own closure.
  func arm(after delay: Duration, repeating interval: Duration?)

  /// Stops the alarm for good: once this returns, the closure is not called again (it is
  /// released), even for a fire that waits for the actor. Idempotent, from any thread.
  func cancel()

  /// Whether ``cancel()`` was called.
  var isCancelled: Bool { get }
}

/// An alarm on `clock` that calls `fire` on `isolation` with a tick for each fire, and may fire
/// up to `leeway` late (a negative leeway is zero). It is disarmed until its first
/// ``Alarm/arm(after:repeating:)``.
@usableFromInline
func makeAlarm<C: Clock<Duration>>(
  clock: C, leeway: Duration = .zero, isolation: isolated any Actor = #isolation,
  _ fire: @escaping (Tick) -> Void
) -> any Alarm {
  makeAlarm(
    clock: clock, leeway: leeway, firing: ObserverGate(isolation: isolation, fire), on: isolation)
}

/// An alarm on `clock` that sends a tick for each fire to `gate`, whose actor is `actor` (nil
/// for a `@Sendable` gate, which runs where the alarm fires). With `once`, the alarm lets its
/// timer go after its first fire, and cannot be armed again (a one-shot of `Timers`).
func makeAlarm<C: Clock<Duration>>(
  clock: C, leeway: Duration, firing gate: ObserverGate<Tick>, on actor: (any Actor)?,
  once: Bool = false
) -> any Alarm {
  if C.self == ContinuousClock.self || C.self == SuspendingClock.self {
    return DispatchAlarm(gate: gate, leeway: leeway, once: once)
  }
  if let manual = clock as? ManualClock {
    return manual.alarm(isolation: actor, gate: gate)
  }
  return TaskAlarm(clock: clock, leeway: leeway, isolation: actor, gate: gate)
}

/// The count of an alarm's fires, from any thread: each fire's ``Tick``.
final class FireCount: Sendable {
  private let fires = Atomic(0)

  init() {}

  /// The tick of a fire that stands for `merged` fires.
  func tick(merged: Int = 1) -> Tick {
    Tick(index: fires.add(merged, ordering: .relaxed).newValue, merged: merged)
  }
}

/// `interval` clamped to what an alarm waits: zero or less is no wait (a deadline already
/// passed), and one longer than ``Timers/maximumInterval`` waits that long (about 63 years: in
/// practice never, as Combine's `distantFuture`), so that no deadline computed from it can
/// overflow.
@usableFromInline
func clampedInterval(_ interval: Duration) -> Duration {
  min(max(interval, .zero), Timers.maximumInterval)
}
