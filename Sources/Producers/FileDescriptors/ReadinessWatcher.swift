import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Delivers a descriptor's readiness for one subscription: it waits with ``DescriptorPoller``,
/// reports, and once the subscriber has received the report, waits again (at once ready again,
/// if the subscriber did not read or write).
///
/// `@unchecked Sendable` as ``DescriptorReader`` is: it adds only an immutable field.
final class ReadinessWatcher: DescriptorReader<Int>, @unchecked Sendable {
  // `POLLIN` or `POLLOUT`.
  private let events: Int16

  /// Starts watching `fd`, a descriptor acquired from `holder`, which the watcher now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    queue: DispatchQueue,
    events: Int16,
    observer: DescriptorObserver<Int>,
    isolation: isolated any Actor
  ) {
    self.events = events
    super.init(holder: holder, fd: fd, queue: queue, observer: observer, isolation: isolation)
    queue.async(execute: waitForReadiness)
  }

  /// Waits until the descriptor is ready, on the queue.
  @Sendable private func waitForReadiness() {
    guard !turnMustStop else { return }
    wait(for: events, then: ready)
  }

  /// Reports readiness, on the queue; the next wait follows the report's delivery.
  @Sendable private func ready() {
    guard !turnMustStop else { return }
    deliver([estimate()], then: onQueue(waitForReadiness))
  }

  /// For a readable descriptor, the bytes that a read would return now (`FIONREAD`; 0 at end of
  /// file); for a writable pipe on Linux, its free space; otherwise 1.
  private func estimate() -> Int {
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
