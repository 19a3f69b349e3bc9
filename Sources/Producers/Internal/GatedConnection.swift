import IndefiniteObservable
import Multicast

/// How every producer of this module connects a subscriber, written once: the two forms of a
/// producer (a stream delivered on an actor, and a `@Sendable` closure on `.sendingThread`)
/// differ only in the `ObserverGate` they hand one core of the producer's own.
///
/// A producer's core is a *connect*, `(ObserverGate<Event>) -> @Sendable () -> Void`: it starts what
/// reads the system for one subscription (a timer, a signal's entry, a reader, a watch), which
/// sends each event to the gate from the thread that read it, and returns what lets it go. The
/// gate decides where the subscriber runs: on its actor, after one thread switch (or none when
/// the reading thread runs that actor), or, made from a `@Sendable` closure, on the reading
/// thread itself. So the forms are written once each, here:
///
/// ```swift
/// // The actor form, on the caller's actor:
/// GatedConnection.stream(isolation: isolation) { gate in start(gate) }
/// // The `.sendingThread` form, from any isolation:
/// GatedConnection.subscription(ObserverGate(next)) { gate in start(gate) }
/// ```
///
/// - Ending: the disconnect of every subscription closes the gate first, so that no call of the
///   subscriber begins once `unsubscribe()` returns (from any thread, the subscriber included),
///   then runs the core's disconnect, which lets go of what it held, after the gate's lock.
///   The core's disconnect is `@Sendable`, so the `.sendingThread` form returns a
///   `SendableSubscription`, which any thread may end.
/// - Failure: a core that can fail for one subscription (a descriptor that cannot be
///   duplicated) throws; the `.sendingThread` form throws it to the caller, who can act, and
///   the gate is closed.
enum GatedConnection {
  /// Connects `gate` with `connect`: the disconnect returned closes the gate, then runs
  /// `connect`'s own. Nothing is connected when `connect` throws (the gate is closed then).
  static func connect<Event: Sendable, Failure: Error>(
    _ gate: ObserverGate<Event>,
    _ connect: (ObserverGate<Event>) throws(Failure) -> @Sendable () -> Void
  ) throws(Failure) -> @Sendable () -> Void {
    let release: @Sendable () -> Void
    do {
      release = try connect(gate)
    } catch {
      gate.close()
      throw error
    }
    return {
      gate.close()
      release()
    }
  }

  /// The `.sendingThread` form: one subscription of `gate` (made from a `@Sendable` closure, or
  /// the producer's `@Sendable` pair of channels), connected now, from any isolation.
  ///
  /// Dropping the subscription does not unsubscribe: what `connect` started lives until
  /// `unsubscribe()`.
  ///
  /// The gate is made only once `connect` is, so that a producer's core that throws while it
  /// is made (bad input) leaves no gate behind: a gate that refers to itself until it closes
  /// (`DescriptorEvent.gate(next:status:)`) would otherwise leak.
  static func subscription<Event: Sendable, Failure: Error>(
    _ gate: @autoclosure () -> ObserverGate<Event>,
    _ connect: (ObserverGate<Event>) throws(Failure) -> @Sendable () -> Void
  ) throws(Failure) -> SendableSubscription {
    SendableSubscription(try Self.connect(gate(), connect))
  }

  /// The actor form: a stream each of whose subscriptions connects a gate to its observer,
  /// bound to `isolation`.
  static func stream<Value: Sendable>(
    isolation: isolated any Actor,
    _ connect: @escaping (ObserverGate<Value>) -> @Sendable () -> Void
  ) -> ValueObservable<Value> {
    ValueObservable { observer in
      Self.connect(ObserverGate(isolation: isolation, observer.next), connect)
    }
  }
}
