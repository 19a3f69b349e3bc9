import Dispatch
import IndefiniteObservable

/// Delivers a descriptor's readiness for one subscription, from a Dispatch read or write source.
///
/// `source` is used only on the delivery queue (see ``DescriptorReader``).
final class ReadinessWatcher: DescriptorReader<Int>, @unchecked Sendable {
  private let events: Int16
  private var source: (any DispatchSourceProtocol)?
  private let cancelSource: any DispatchSourceProtocol

  /// Starts watching `fd`, a duplicate acquired from `holder`, which the watcher now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    queue: DispatchQueue,
    events: Int16,
    makeSource: (Int32, DispatchQueue) -> any DispatchSourceProtocol,
    observer: DescriptorObserver<Int>
  ) {
    self.events = events
    let source = makeSource(fd, queue)
    self.source = source
    self.cancelSource = source
    super.init(holder: holder, fd: fd, queue: queue, observer: observer)
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: fire)
    source.setCancelHandler(handler: release)
    source.activate()
    LiveResources.opened(.dispatchSources)
  }

  /// Runs when Dispatch reports readiness, on the delivery queue.
  @Sendable private func fire() {
    guard let source else { return }
    deliverReadiness(Int(source.data))
  }

  /// Delivers readiness, then again on the queue for as long as the descriptor stays ready:
  /// Dispatch on Linux reports new readiness only once, and the contract is that the stream
  /// keeps delivering until the subscriber has read (or written) what it can. A repeat carries
  /// the estimate of the report it repeats (a source's `data` is only valid in its handler).
  @Sendable private func deliverReadiness(_ estimate: Int) {
    guard source != nil, deliver(estimate) else { return }
    if !isCancelled && System.isReady(fd, for: events) {
      queue.async { self.deliverReadiness(estimate) }
    }
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
