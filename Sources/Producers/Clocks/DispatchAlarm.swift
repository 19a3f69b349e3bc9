import Dispatch
import IndefiniteObservable
import Multicast

/// An ``Alarm`` of `ContinuousClock` or `SuspendingClock`: a Dispatch timer source on a serial
/// queue of its own, whose fires hop to the actor through an `ObserverGate`.
///
/// Dispatch counts a deadline from now with the system's monotonic clock; a delay is measured
/// from the moment the alarm is armed, which is what both Swift clocks mean by a duration from
/// now (they differ only while the machine sleeps).
final class DispatchAlarm: Alarm {
  // A Dispatch source is thread-safe (`schedule` and `cancel` may be called from any thread,
  // at once), which the Dispatch overlay does not say with `Sendable`; the event handler reads
  // `data` only inside itself, as Dispatch requires.
  private nonisolated(unsafe) let timer: any DispatchSourceTimer
  private let gate: ObserverGate<Tick>
  private let leeway: DispatchTimeInterval

  /// A disarmed alarm whose fires go to `gate`, at most `leeway` late, from a timer on a new
  /// serial queue of its own. With `once`, the timer is cancelled after its first fire (the tick
  /// still reaches the gate), and the alarm cannot be armed again.
  init(gate: ObserverGate<Tick>, leeway: Duration, once: Bool = false) {
    self.gate = gate
    self.leeway = Self.dispatchInterval(clampedInterval(leeway))
    let timer = DispatchSource.makeTimerSource(
      queue: DispatchQueue(label: "IndefiniteObservable.Alarm"))
    LiveResources.opened(.dispatchSources)
    // The handler holds the timer until `cancel`, when Dispatch releases its handlers. A gate
    // made from a `@Sendable` closure runs it here, on the timer's queue.
    let fires = FireCount()
    timer.setEventHandler { [timer, gate] in
      gate.send(fires.tick(merged: max(1, Int(timer.data))))
      if once { timer.cancel() }
    }
    timer.setCancelHandler { LiveResources.closed(.dispatchSources) }
    timer.schedule(deadline: .distantFuture, repeating: .never)
    // Activated at once: a source that was never activated crashes when it is released.
    timer.activate()
    self.timer = timer
  }

  func arm(after delay: Duration, repeating interval: Duration?) {
    timer.schedule(
      deadline: .now() + Self.dispatchInterval(clampedInterval(delay)),
      repeating: interval.map { Self.dispatchInterval(clampedInterval($0)) } ?? .never,
      leeway: leeway)
  }

  var isCancelled: Bool { gate.isClosed }

  func cancel() {
    gate.close()
    timer.cancel()
  }

  /// `duration` (from zero to ``Timers/maximumInterval``) as a Dispatch interval, rounded to
  /// the nanosecond: in nanoseconds where `Int` can count them (always on 64-bit platforms);
  /// on 32-bit ones, in the finest unit it can, which loses less than a second and only past
  /// 24 days.
  static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    let (seconds, attoseconds) = duration.components
    let nanoseconds = seconds * 1_000_000_000 + (attoseconds + 500_000_000) / 1_000_000_000
    if let count = Int(exactly: nanoseconds) { return .nanoseconds(count) }
    if let count = Int(exactly: nanoseconds / 1_000) { return .microseconds(count) }
    if let count = Int(exactly: nanoseconds / 1_000_000) { return .milliseconds(count) }
    return .seconds(Int(clamping: nanoseconds / 1_000_000_000))
  }
}
