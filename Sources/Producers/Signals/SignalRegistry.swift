import Dispatch
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
/// handler is installed (with the disposition each replaced), and the emitter through which
/// every delivery fans out to the subscriptions.
///
/// The handler only writes a signal's number to the pipe; everything else happens here, outside
/// signal context. The pipe is read on one serial queue, which sends each signal to
/// ``deliveries``; each subscription receives it on its own actor.
final class SignalRegistry: Sendable {
  /// The registry of this process.
  static let shared = SignalRegistry()

  /// Every signal handled, in the order they arrived.
  let deliveries: SharedEmitter<UnixSignal>

  /// A signal whose handler is ours: how many subscriptions want it, and what it replaced.
  private struct Installation {
    var subscriptions: Int
    let previous: sigaction
  }

  // The pipe's reader, made by the first `prepare`, and the installed handlers. `sigaction`
  // runs inside the lock, so that installs and restores are ordered; no subscriber is called or
  // released inside it.
  private let state = LockedState<
    (channel: ProcessChannel?, installations: [Int32: Installation])
  >((nil, [:]))

  private init() {
    deliveries = SharedEmitter(keepsLastValue: false)
    deliveries.maxSubscribers = .max
  }

  /// Makes the self-pipe and starts reading it, the first time it is called in the process.
  ///
  /// The pipe and its reader are kept for the life of the process (two descriptors): the
  /// handler can still be running on some thread right after a restore, and must never find its
  /// descriptor closed or reused.
  func prepare() throws(SignalError) {
    try state.withLock { (state) throws(SignalError) in
      guard state.channel == nil else { return }
      let ends: (read: Int32, write: Int32)
      switch System.makePipe() {
      case .success(let made): ends = made
      case .failure(let errno): throw .pipeFailed(errno)
      }
      SignalHandler.setPipe(writeEnd: ends.write)
      let deliveries = self.deliveries
      state.channel = ProcessChannel(fd: ends.read, label: "IndefiniteObservable.Signals") {
        numbers in
        for number in numbers { deliveries.send(UnixSignal(rawValue: Int32(number))) }
      }
    }
  }

  /// Subscribes `next` to the deliveries of `signals`, on `isolation`, installing the handler of
  /// each signal that had none.
  ///
  /// Deliveries already in the pipe go to the earlier subscribers first, so a new subscription
  /// does not receive a signal that was handled before it subscribed. Once this returns, a
  /// signal sent to the process reaches the subscriber.
  func subscribe(
    to signals: Set<Int32>,
    isolation: isolated any Actor,
    _ next: @escaping (UnixSignal) -> Void
  ) -> Disconnect {
    state.withLock { $0.channel }?.drainNow()
    let subscription = deliveries.subscribe(isolation: isolation) { signal in
      if signals.contains(signal.rawValue) { next(signal) }
    }
    install(signals)
    return { [self] in
      subscription.unsubscribe()
      restore(signals)
    }
  }

  /// Counts one more subscription to each of `signals`, installing the handlers that are
  /// missing.
  private func install(_ signals: Set<Int32>) {
    state.withLock { state in
      for number in signals {
        if state.installations[number] == nil {
          let previous = SignalHandler.install(number)
          LiveResources.opened(.signalHandlers)
          state.installations[number] = Installation(subscriptions: 0, previous: previous)
        }
        state.installations[number]?.subscriptions += 1
      }
    }
  }

  /// Counts one subscription less to each of `signals`; the last one restores the disposition
  /// that the signal had before the first.
  private func restore(_ signals: Set<Int32>) {
    state.withLock { state in
      for number in signals {
        guard var installation = state.installations[number] else { continue }
        installation.subscriptions -= 1
        if installation.subscriptions > 0 {
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
