import IndefiniteObservable
import Multicast

/// Calls a closure on an actor at deadlines of a clock: the one timer mechanism of this module,
/// behind ``Timers``, `debounce`, `throttle`, `delay` and the file watch's directory checks.
///
/// An alarm is made for one clock, one actor and one closure
/// (``makeAlarm(clock:leeway:isolation:_:)``), and then armed and re-armed as often as its owner
/// needs; each fire sends the number of fires it stands for (more than 1 when Dispatch merged
/// fires of a repeating alarm whose queue was late) through an `ObserverGate` bound to the
/// actor. Three kinds, picked by the clock:
///
/// - `ContinuousClock` and `SuspendingClock`: a `DispatchSourceTimer` (``DispatchAlarm``): one
///   thread switch per fire, from the timer's queue to the actor, as a bare Dispatch timer that
///   hands its fires to an actor.
/// - ``ManualClock``: an entry in the clock's queue of due work, which `advance(by:)` runs on
///   the actor before it returns.
/// - Any other clock: a task on the actor that sleeps on the clock (``TaskAlarm``).
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

/// An alarm on `clock` that calls `fire` on `isolation` with the number of fires each call
/// stands for, and may fire up to `leeway` late (a negative leeway is zero). It is disarmed
/// until its first ``Alarm/arm(after:repeating:)``.
@usableFromInline
func makeAlarm<C: Clock<Duration>>(
  clock: C, leeway: Duration = .zero, isolation: isolated any Actor = #isolation,
  _ fire: @escaping (Int) -> Void
) -> any Alarm {
  let gate = ObserverGate(isolation: isolation, fire)
  if C.self == ContinuousClock.self || C.self == SuspendingClock.self {
    return DispatchAlarm(gate: gate, leeway: leeway)
  }
  if let manual = clock as? ManualClock {
    return manual.alarm(isolation: isolation, gate: gate)
  }
  return TaskAlarm(clock: clock, leeway: leeway, isolation: isolation, gate: gate)
}

/// `interval` clamped to what an alarm waits: zero or less is no wait (a deadline already
/// passed), and one longer than ``Timers/maximumInterval`` waits that long (about 63 years: in
/// practice never, as Combine's `distantFuture`), so that no deadline computed from it can
/// overflow.
@usableFromInline
func clampedInterval(_ interval: Duration) -> Duration {
  min(max(interval, .zero), Timers.maximumInterval)
}
