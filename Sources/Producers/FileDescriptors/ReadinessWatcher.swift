import Dispatch
import IndefiniteObservable

/// Delivers a descriptor's readiness for one subscription, from a Dispatch read or write source.
///
/// `source` and `isDelivering` are used only on the watcher's queue (see ``DescriptorReader``).
final class ReadinessWatcher: DescriptorReader<Int>, @unchecked Sendable {
  private let events: Int16
  private var source: (any DispatchSourceProtocol)?
  // Whether a report is on its way to the subscriber, or being repeated: the source's events
  // meanwhile are left to the repeat, which asks the descriptor itself.
  private var isDelivering = false
  private let cancelSource: any DispatchSourceProtocol

  /// Starts watching `fd`, a duplicate acquired from `holder`, which the watcher now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    queue: DispatchQueue,
    events: Int16,
    makeSource: (Int32, DispatchQueue) -> any DispatchSourceProtocol,
    observer: DescriptorObserver<Int>,
    isolation: isolated any Actor
  ) {
    self.events = events
    let source = makeSource(fd, queue)
    self.source = source
    self.cancelSource = source
    super.init(holder: holder, fd: fd, queue: queue, observer: observer, isolation: isolation)
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: fire)
    source.setCancelHandler(handler: release)
    source.activate()
    LiveResources.opened(.dispatchSources)
  }

  /// Runs when Dispatch reports readiness, on the watcher's queue.
  @Sendable private func fire() {
    guard let source, !isDelivering else { return }
    deliverReadiness(Int(source.data))
  }

  /// Delivers readiness, then again for as long as the descriptor stays ready: Dispatch on
  /// Linux reports new readiness only once, and the contract is that the stream keeps
  /// delivering until the subscriber has read (or written) what it can. A repeat is asked for
  /// once the subscriber has received the report, on its actor (so a busy actor is not flooded
  /// with reports), and carries the estimate of the report it repeats (a source's `data` is
  /// only valid in its handler).
  @Sendable private func deliverReadiness(_ estimate: Int) {
    guard source != nil, !isCancelled else { return }
    isDelivering = true
    deliver([estimate], then: onQueue { self.repeatIfReady(estimate) })
  }

  /// Runs on the watcher's queue after the subscriber received a report.
  @Sendable private func repeatIfReady(_ estimate: Int) {
    guard source != nil, !isCancelled, System.isReady(fd, for: events) else {
      isDelivering = false
      return
    }
    deliverReadiness(estimate)
  }

  /// Runs once after the source was cancelled: Dispatch no longer watches the duplicate.
  @Sendable override func release() {
    source = nil
    super.release()
    LiveResources.closed(.dispatchSources)
  }

  override func stop() {
    cancelSource.cancel()
  }
}
