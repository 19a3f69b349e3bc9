import Multicast

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Streams of Unix signals delivered to this process: `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGUSR1`,
/// `SIGWINCH`, `SIGCHLD`, ...
///
/// ```swift
/// let stop = try Signals.deliveries(of: SIGINT, SIGTERM)
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
/// - Threading: `deliveries(of:)` returns a `Producer`, which any code may make and subscribe
///   to. The self-pipe is read on the package's poller thread (on a private serial queue), which
///   sends each signal only to the subscriptions of that signal. `subscribe { ... }` and
///   `stream()` run the subscriber on the caller's actor: one thread switch, from the poller to
///   that actor; nothing is merged when the actor is busy (the deliveries wait in line).
///   `subscribe(on: .sendingThread) { ... }` runs a `@Sendable` subscriber where the pipe is read,
///   with no thread switch: one signal at a time, in the order they arrived. Keep it short there:
///   it holds up every signal behind it, and the descriptor streams the poller serves. Every run
///   of the handler is one delivery; the system itself merges a standard signal sent again while
///   it is still pending (not yet handled), as it does for any handler.
/// - Unsubscribe from any thread; nothing more is delivered to that subscription after it
///   returns. A subscription does not receive signals handled before it subscribed; one made
///   where the pipe is read may receive the signals read together with the one being delivered.
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
///   list are a ``SignalError`` thrown when the producer is made.
public enum Signals {
  /// The deliveries of `signals` to this process, as ``UnixSignal`` values.
  ///
  /// - Parameter signals: The platform's numbers of the signals to receive (`SIGINT`,
  ///   `SIGUSR1`); duplicates are ignored.
  /// - Throws: ``SignalError`` for a signal that cannot be caught or does not exist, for an
  ///   empty list, and when the process has no descriptor left for the signal pipe; nothing is
  ///   installed then (the handler is installed by each subscription, before `subscribe`
  ///   returns, so a signal sent after it is delivered).
  public static func deliveries(of signals: Int32...) throws(SignalError) -> Producer<UnixSignal> {
    try deliveries(of: signals)
  }

  /// The deliveries of `signals` to this process, for a list built at run time; the same as the
  /// variadic form.
  ///
  /// - Throws: ``SignalError``, as the variadic form.
  public static func deliveries(of signals: [Int32]) throws(SignalError) -> Producer<UnixSignal> {
    guard !signals.isEmpty else { throw .noSignals }
    for signal in signals { try validate(signal) }
    let registry = SignalRegistry.shared
    try registry.prepare()
    let numbers = Set(signals)
    return Producer { gate in registry.connect(gate, to: numbers) }
  }

  private static func validate(_ number: Int32) throws(SignalError) {
    guard (1...UnixSignal.highestNumber).contains(number) else { throw .outOfRange(number) }
    let signal = UnixSignal(rawValue: number)
    switch number {
    case SIGKILL, SIGSTOP: throw .notCatchable(signal)
    case SIGSEGV, SIGBUS, SIGFPE, SIGILL: throw .fault(signal)
    default: break
    }
    guard SignalHandler.isAvailable(number) else { throw .reserved(signal) }
  }
}
