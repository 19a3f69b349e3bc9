import Dispatch

/// Delivers a descriptor's readiness for one subscription, from a Dispatch read or write source.
///
/// `@unchecked Sendable`: `next` and `source` are used only by `fire` and `release`, which
/// Dispatch runs on the source's serial delivery queue one at a time; `disconnect` touches only
/// the immutable `cancelSource` and the thread-safe `cancellation`.
final class ReadinessWatcher: @unchecked Sendable {
  private let holder: DescriptorHolder
  private var next: ((Int) -> Void)?
  private var source: (any DispatchSourceProtocol)?
  private let cancelSource: any DispatchSourceProtocol
  private let cancellation = CancellationFlag()

  /// Starts watching; the caller has taken a lease on `holder`, which `release` returns.
  init(holder: DescriptorHolder, source: any DispatchSourceProtocol, next: @escaping (Int) -> Void)
  {
    self.holder = holder
    self.next = next
    self.source = source
    self.cancelSource = source
    source.setEventHandler(handler: fire)
    source.setCancelHandler(handler: release)
    source.activate()
  }

  @Sendable private func fire() {
    guard let source, let next, !cancellation.isCancelled else { return }
    next(Int(source.data))
  }

  @Sendable private func release() {
    next = nil
    source = nil
    holder.release()
  }

  /// The subscription's disconnect: stops delivery at once and cancels the source.
  func disconnect() {
    guard cancellation.cancel() else { return }
    cancelSource.cancel()
  }
}
