import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension UnixSignal {
  /// The highest signal number: `NSIG - 1`, 64 on Linux (the kernel's `SIGRTMAX`) and 31 on
  /// Apple platforms.
  static var highestNumber: Int32 { Int32(NSIG) - 1 }
}

/// The write end of the self-pipe, which `forwardSignal` writes to.
///
/// Stored once, under the registry's lock and before the first handler is installed, and never
/// changed: the pipe lives as long as the process, so a handler still running on another thread
/// after a restore can never write to a reused descriptor number. An `Atomic`, so the compiler
/// checks that every thread may read it; its load is lock-free, which a signal handler may do.
/// (It is first touched by ``SignalHandler/setPipe(writeEnd:)``, so the handler never runs its
/// lazy initialization.)
private let pipeWriteEnd = Atomic<Int32>(-1)

/// The `sigaction` handler of every subscribed signal: writes the signal number as one byte to
/// the self-pipe, and nothing else.
///
/// Async-signal-safe: one `write` (non-blocking), errno saved and restored, no allocation, no
/// lock, no reference counting. When the pipe is full (tens of thousands of deliveries not yet
/// read) the byte is dropped rather than blocking the interrupted thread.
private func forwardSignal(_ number: Int32) {
  let errno = errnoLocation()
  let savedErrno = errno.pointee
  var byte = UInt8(truncatingIfNeeded: number)
  _ = write(pipeWriteEnd.load(ordering: .acquiring), &byte, 1)
  errno.pointee = savedErrno
}

/// Installs and restores the handler that forwards signals to the self-pipe.
///
/// Not thread-safe by itself: ``SignalRegistry`` calls it under its lock.
enum SignalHandler {
  /// Sets the descriptor the handler writes to; called once, before the first ``install(_:)``.
  static func setPipe(writeEnd: Int32) {
    pipeWriteEnd.store(writeEnd, ordering: .releasing)
  }

  /// Whether the C library lets a program handle `number` (glibc refuses the signals it keeps
  /// for its threads). Changes nothing.
  static func isAvailable(_ number: Int32) -> Bool {
    var current = sigaction()
    return sigaction(number, nil, &current) == 0
  }

  /// Installs the forwarding handler for `number` and returns the disposition it replaced.
  ///
  /// The handler restarts interrupted system calls (`SA_RESTART`) and blocks no other signal
  /// while it runs. `number` must have passed validation, which leaves no way for `sigaction`
  /// to fail.
  static func install(_ number: Int32) -> sigaction {
    var action = sigaction()
    action.handler = forwardSignal
    action.sa_flags = SA_RESTART
    sigemptyset(&action.sa_mask)
    var previous = sigaction()
    let result = sigaction(number, &action, &previous)
    precondition(result == 0, "sigaction(\(number)) failed after validation: errno \(errno)")
    return previous
  }

  /// Puts back a disposition returned by ``install(_:)``: its handler, mask and flags.
  ///
  /// On Linux, glibc adds its `SA_RESTORER` flag to every action it installs, so a disposition
  /// never set since the process started (flags 0) reads back with that flag; it only tells the
  /// kernel how a handler returns, and changes nothing for `SIG_DFL` or `SIG_IGN`.
  static func restore(_ number: Int32, to previous: sigaction) {
    var previous = previous
    _ = sigaction(number, &previous, nil)
  }
}
