import Dispatch
import IndefiniteObservable

/// Delivers a descriptor's readiness for one subscription, from a Dispatch read or write source.
///
/// `@unchecked Sendable`: `next` and `source` are used only by `fire` and `release`, which run
/// on the source's serial delivery queue one at a time; `disconnect` touches only the immutable
/// `cancelSource` and the thread-safe `holder` and `cancellation`.
final class ReadinessWatcher: @unchecked Sendable {
  private let holder: DescriptorHolder
  private let fd: Int32
  private let queue: DispatchQueue
  private let events: Int16
  private var next: ((Int) -> Void)?
  private var source: (any DispatchSourceProtocol)?
  private let cancelSource: any DispatchSourceProtocol
  private let cancellation = CancellationFlag()

  /// Starts watching `fd`, a duplicate acquired from `holder`, which the watcher now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    queue: DispatchQueue,
    events: Int16,
    makeSource: (Int32, DispatchQueue) -> any DispatchSourceProtocol,
    next: @escaping (Int) -> Void
  ) {
    self.holder = holder
    self.fd = fd
    self.queue = queue
    self.events = events
    self.next = next
    let source = makeSource(fd, queue)
    self.source = source
    self.cancelSource = source
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: fire)
    source.setCancelHandler(handler: release)
    source.activate()
    LiveResources.opened(.producerObservers)
    LiveResources.opened(.dispatchSources)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Runs when Dispatch reports readiness, on the delivery queue.
  @Sendable private func fire() {
    guard let source else { return }
    deliver(Int(source.data))
  }

  /// Delivers readiness, then again on the queue for as long as the descriptor stays ready:
  /// Dispatch on Linux reports new readiness only once, and the contract is that the stream
  /// keeps delivering until the subscriber has read (or written) what it can. A repeat carries
  /// the estimate of the report it repeats (a source's `data` is only valid in its handler).
  @Sendable private func deliver(_ estimate: Int) {
    guard source != nil, let next, !cancellation.isCancelled else { return }
    next(estimate)
    if !cancellation.isCancelled && System.isReady(fd, for: events) {
      queue.async { self.deliver(estimate) }
    }
  }

  /// Runs once after the source was cancelled: drops the observer and closes the duplicate.
  @Sendable private func release() {
    next = nil
    source = nil
    System.close(fd)
    LiveResources.closed(.descriptors)
    LiveResources.closed(.dispatchSources)
  }

  /// The subscription's disconnect: stops delivery at once and cancels the source.
  func disconnect() {
    guard cancellation.cancel() else { return }
    holder.endUse()
    cancelSource.cancel()
  }
}
