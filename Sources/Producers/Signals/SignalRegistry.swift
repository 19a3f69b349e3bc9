import IndefiniteObservable
import Multicast

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The process-wide state behind ``Signals``: the self-pipe and its reader, the signals whose
/// handler is installed (with the disposition each replaced), and, for each signal number, the
/// gates of the subscriptions that want it.
///
/// The handler only writes a signal's number to the pipe; everything else happens here, outside
/// signal context. The pipe is read on one serial queue, which looks each number up and sends
/// the signal to the gates of that number only: a delivery costs a dictionary lookup, and hops
/// only to the actors of the subscribers that asked for it (one hop each); a `.sendingThread`
/// subscriber's gate runs it on that queue, with no hop. A subscription to
/// several signals has one gate, under each of its numbers, so it receives them in the order
/// they arrived.
final class SignalRegistry: Sendable {
  /// The registry of this process.
  static let shared = SignalRegistry()

  /// A signal whose handler is ours: the gates of the subscriptions that want it, in the order
  /// they subscribed, and what the handler replaced.
  private struct Installation {
    var gates: [ObserverGate<UnixSignal>]
    let previous: sigaction
  }

  // The pipe's reader, made by the first `prepare`, and the installed handlers. `sigaction`
  // runs inside the lock, so that installs and restores are ordered; no subscriber is called or
  // released inside it (a gate removed is released after the lock, and only its subscription
  // closes it).
  private let state = LockedState<
    (channel: ProcessChannel?, installations: [Int32: Installation])
  >((nil, [:]))

  private init() {}

  /// Makes the self-pipe and starts reading it, the first time it is called in the process.
  ///
  /// The pipe and its reader are kept for the life of the process (two descriptors): the
  /// handler can still be running on some thread right after a restore, and must never find its
  /// descriptor closed or reused.
  func prepare() throws(SignalError) {
    try state.withLock { (state) throws(SignalError) in
      guard state.channel == nil else { return }
      let ends = try System.makePipe().mapError(SignalError.pipeFailed).get()
      SignalHandler.setPipe(writeEnd: ends.write)
      state.channel = ProcessChannel(fd: ends.read) {
        numbers in
        for number in numbers { self.deliver(Int32(number)) }
      }
    }
  }

  /// Sends the signal `number` to the gates of its subscriptions, after the lock.
  private func deliver(_ number: Int32) {
    guard let gates = state.withLock({ $0.installations[number]?.gates }) else { return }
    let signal = UnixSignal(rawValue: number)
    // Read on the main thread (`MainLoop.run()`), a main-actor gate delivers at once.
    for gate in gates { gate.sendFromCurrentThread(signal) }
  }

  /// Connects `gate` to the deliveries of `signals`, installing the handler of each signal that
  /// had none; the disconnect returned removes it, and restores the disposition of each signal
  /// it was the last subscriber of (its `Producer` closes the gate before).
  ///
  /// Deliveries already in the pipe go to the earlier subscribers first, so a new subscription
  /// does not receive a signal that was handled before it subscribed; a subscription made in
  /// the pipe's turn itself (by a `.sendingThread` subscriber, while it receives a signal)
  /// may receive the signals read with that one. Once this returns, a signal sent to the
  /// process reaches the subscriber.
  func connect(_ gate: ObserverGate<UnixSignal>, to signals: Set<Int32>) -> @Sendable () -> Void {
    if let channel = state.withLock({ $0.channel }), !channel.isCurrent { channel.drainNow() }
    LiveResources.opened(.producerObservers)
    install(gate, for: signals)
    return { [self] in
      restore(gate, for: signals)
      LiveResources.closed(.producerObservers)
    }
  }

  /// Adds `gate` to each of `signals`, installing the handlers that are missing.
  private func install(_ gate: ObserverGate<UnixSignal>, for signals: Set<Int32>) {
    state.withLock { state in
      for number in signals {
        if state.installations[number] == nil {
          let previous = SignalHandler.install(number)
          LiveResources.opened(.signalHandlers)
          state.installations[number] = Installation(gates: [], previous: previous)
        }
        state.installations[number]?.gates.append(gate)
      }
    }
  }

  /// Removes `gate` from each of `signals`; the last one of a signal restores the disposition
  /// that the signal had before the first.
  private func restore(_ gate: ObserverGate<UnixSignal>, for signals: Set<Int32>) {
    state.withLock { state in
      for number in signals {
        guard var installation = state.installations[number] else { continue }
        installation.gates.removeAll { $0 === gate }
        if !installation.gates.isEmpty {
          state.installations[number] = installation
        } else {
          SignalHandler.restore(number, to: installation.previous)
          LiveResources.closed(.signalHandlers)
          state.installations[number] = nil
        }
      }
    }
  }
}
