import Multicast

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Delivers a descriptor's readiness for one subscription: it waits with ``DescriptorPoller``,
/// reports from the poller's thread to the subscriber's actor (one thread switch; none for a
/// `.sendingThread` subscriber, which runs there), and once the subscriber has received the
/// report, waits again (at once ready again, if the subscriber did not read or write).
final class ReadinessWatcher: Sendable {
  private let reader: DescriptorReader<Int, Void>
  // `POLLIN` or `POLLOUT`.
  private let events: Int16

  /// Starts watching `fd`, a descriptor acquired from `holder`, which the watcher now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    events: Int16,
    observer: ObserverGate<DescriptorEvent<Int>>
  ) {
    self.events = events
    reader = DescriptorReader(holder: holder, fd: fd, state: (), observer: observer)
    waitForReadiness()
  }

  /// Ends the subscription (see ``DescriptorReader/disconnect()``).
  func disconnect() { reader.disconnect() }

  /// Waits until the descriptor is ready.
  @Sendable private func waitForReadiness() {
    reader.wait(for: events) { [self] in ready() }
  }

  /// Reports readiness, on the poller's thread; the next wait follows the report's delivery.
  /// The subscriber reads or writes the descriptor itself: on `.sendingThread`, in this call,
  /// which therefore holds it open until it returns.
  private func ready() {
    let events = self.events
    guard let estimate = reader.withTurn({ fd, _ in Self.estimate(fd, events) }) else { return }
    reader.deliverUsingDescriptor(estimate, then: waitForReadiness)
  }

  /// For a readable descriptor, the bytes that a read would return now (`FIONREAD`; 0 at end of
  /// file); for a writable pipe on Linux, its free space; otherwise 1.
  private static func estimate(_ fd: Int32, _ events: Int16) -> Int {
    if events == Int16(POLLIN) { return System.readableByteCount(fd) ?? 1 }
    #if os(Linux)
      let getPipeSize: Int32 = 1032  // F_GETPIPE_SZ, which Glibc exports only with _GNU_SOURCE
      let capacity = fcntl(fd, getPipeSize)
      if capacity > 0, let count = System.readableByteCount(fd) {
        return max(Int(capacity) - count, 1)
      }
    #endif
    return 1
  }
}
