import Dispatch
import IndefiniteObservable
import Multicast

/// Streams of Unix signals delivered to this process: `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGUSR1`,
/// `SIGWINCH`, `SIGCHLD`, ...
///
/// ```swift
/// let stop = try Signals.deliveries(of: .interrupt, .terminate)
/// let subscription = stop.subscribe { signal in print("\(signal): shutting down") }
/// // ...
/// subscription.unsubscribe()
/// ```
///
/// - Disposition: the first subscription to a signal installs this library's handler
///   synchronously, so a signal sent after `subscribe` returns is delivered. While any
///   subscription to a signal exists, its previous disposition (the default action, ignoring, or
///   another handler, which is not chained) is suspended. When the last one unsubscribes, the
///   previous disposition is back exactly (handler, mask and flags), and a signal sent while
///   nobody subscribes meets it: the default action kills the process, as before.
/// - Threading: a stream is made on an actor (the main actor in top-level code and in
///   `@MainActor` types), and each subscription receives its signals on that actor, one at a
///   time; the self-pipe is read on the package's poller thread (on a private serial queue,
///   with no switch), which sends each signal only to the subscriptions of that signal: one
///   thread switch, from there to the subscriber's actor. Code that is not isolated to an actor cannot make a stream. Every run of the
///   handler is one delivery, in the order the signals arrived; nothing is merged when the actor is busy (the deliveries wait in line).
///   The system itself merges a standard signal sent again while it is still pending (not yet
///   handled), as it does for any handler.
/// - On the reading thread: `deliveries(of:on:_:)` (variadic, or an array)
///   with `.sendingThread` subscribe a `@Sendable` closure, from any isolation, that runs where
///   the self-pipe is read, with no thread switch by the package; only the subscribers of a
///   signal are called for it.
/// - Unsubscribe on the actor that made the stream (the stream is not `Sendable`); nothing more
///   is delivered to that subscription after it returns. A subscription does not receive
///   signals handled before it subscribed.
/// - Lifetime: dropping a subscription does not unsubscribe (subscriptions are
///   attach-and-forget), and the handler stays installed until `unsubscribe()`. The first stream
///   made in a process creates a self-pipe (two close-on-exec descriptors) and a wait for it on
///   the package's poller, which are kept for the life of the process and shared by every
///   stream; nothing else outlives a subscription.
/// - Threads: Dispatch's worker threads (and so Swift concurrency's on Linux) block signals, so
///   `raise` called on one of them leaves the signal pending on that thread forever. To signal the
///   process from such code, use `kill(getpid(), signal)`.
/// - Do not handle the same signal with `DispatchSource.makeSignalSource` or your own
///   `sigaction` while subscribed: the last handler installed wins, and the last unsubscribe puts
///   back the disposition that was there at the first subscription.
/// - Bad input: 0, negative and too large numbers, `SIGKILL`, `SIGSTOP`, the fault signals
///   (`SIGSEGV`, `SIGBUS`, `SIGFPE`, `SIGILL`), numbers reserved by the C library and an empty
///   list are a ``SignalError`` thrown when the stream is made.
public enum Signals {
  /// A stream of the deliveries of `signals` to this process.
  ///
  /// - Parameters:
  ///   - signals: The signals to receive; duplicates are ignored.
  ///   - isolation: The actor deliveries run on: the caller's, which the compiler passes.
  /// - Throws: ``SignalError`` for a signal that cannot be caught or does not exist, for an
  ///   empty list, and when the process has no descriptor left for the signal pipe.
  public static func deliveries(
    of signals: UnixSignal..., isolation: isolated any Actor = #isolation
  ) throws(SignalError) -> ValueObservable<UnixSignal> {
    try deliveries(of: signals, isolation: isolation)
  }

  /// A stream of the deliveries of `signals` to this process, for a list built at run time; the
  /// same as the variadic form, delivered on the caller's actor (`isolation`).
  ///
  /// - Throws: ``SignalError`` for a signal that cannot be caught or does not exist, for an
  ///   empty list, and when the process has no descriptor left for the signal pipe.
  public static func deliveries(
    of signals: [UnixSignal], isolation: isolated any Actor = #isolation
  ) throws(SignalError) -> ValueObservable<UnixSignal> {
    let connect = try connection(to: signals)
    return GatedConnection.stream(isolation: isolation, connect)
  }

  /// Subscribes `next` to the deliveries of `signals` to this process, to run on the thread that
  /// reads them from the signal pipe: no thread switch by the package.
  ///
  /// ```swift
  /// let reloads = LockedState(0)
  /// let reloading = try Signals.deliveries(of: .hangup, on: .sendingThread) { _ in
  ///   reloads.withLock { $0 += 1 }
  /// }
  /// ```
  ///
  /// The spelling and the contract of `subscribe(on: .sendingThread)` on a `SendableEmitter`,
  /// for code with no actor to run on (a server, a command-line tool):
  ///
  /// - Threading: callable from any isolation. `next` is `@Sendable` and runs where the
  ///   process's signal pipe is read (the package's poller thread, on the pipe's serial queue),
  ///   which looks each signal up by number and calls only the subscribers of that signal: one
  ///   signal at a time, in the order they arrived, never two at once. Keep it short: it holds
  ///   up every signal behind it, of every subscriber, and the descriptor streams that the
  ///   poller serves.
  /// - Disposition and bad input: as for the stream of the same signals (see ``Signals``); the
  ///   handler is installed before this returns, so a signal sent after it is delivered.
  /// - Lifetime: `unsubscribe()`, from any thread, `next` included, ends the subscription; no
  ///   call of `next` begins after it returns (one under way on another thread may finish), and
  ///   the last subscription of a signal puts its previous disposition back. Dropping the
  ///   subscription does not unsubscribe: the handler then stays installed.
  /// - A subscription made inside `next` (where the signal pipe is read) may receive the
  ///   signals read together with the one `next` is receiving.
  ///
  /// - Throws: ``SignalError`` for a signal that cannot be caught or does not exist, for an
  ///   empty list, and when the process has no descriptor left for the signal pipe; nothing is
  ///   installed then.
  /// - Parameters:
  ///   - signals: The signals to receive; duplicates are ignored.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each delivery, on the thread that read it.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func deliveries(
    of signals: UnixSignal..., on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (UnixSignal) -> Void
  ) throws(SignalError) -> SendableSubscription {
    try deliveries(of: signals, on: delivery, next)
  }

  /// Subscribes `next` to the deliveries of `signals`, for a list built at run time; the same
  /// as the variadic form, on the thread that reads them.
  ///
  /// - Throws: ``SignalError`` for a signal that cannot be caught or does not exist, for an
  ///   empty list, and when the process has no descriptor left for the signal pipe.
  public static func deliveries(
    of signals: [UnixSignal], on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (UnixSignal) -> Void
  ) throws(SignalError) -> SendableSubscription {
    let connect = try connection(to: signals)
    return GatedConnection.subscription(ObserverGate(next), connect)
  }

  /// The core of both forms: validates `signals`, makes the signal pipe, and returns what
  /// connects one subscriber's gate to the deliveries of those signals.
  private static func connection(
    to signals: [UnixSignal]
  ) throws(SignalError) -> (ObserverGate<UnixSignal>) -> @Sendable () -> Void {
    guard !signals.isEmpty else { throw .noSignals }
    for signal in signals { try validate(signal) }
    let registry = SignalRegistry.shared
    try registry.prepare()
    let numbers = Set(signals.map(\.rawValue))
    return { gate in registry.connect(gate, to: numbers) }
  }

  private static func validate(_ signal: UnixSignal) throws(SignalError) {
    guard (1...UnixSignal.highestNumber).contains(signal.rawValue) else {
      throw .outOfRange(signal.rawValue)
    }
    switch signal {
    case .kill, .stop: throw .notCatchable(signal)
    case .segmentationViolation, .busError, .floatingPointException, .illegalInstruction:
      throw .fault(signal)
    default: break
    }
    guard SignalHandler.isAvailable(signal.rawValue) else { throw .reserved(signal) }
  }
}
