import Dispatch
import IndefiniteObservable

/// One subscription of a signal stream: the signals it wants, its delivery queue and its
/// observer.
///
/// `@unchecked Sendable`: `next` is read and cleared only under `lock`, and called after the lock
/// is released; `signals` and `queue` are immutable.
final class SignalSubscriber: @unchecked Sendable {
  /// The signal numbers this subscription receives.
  let signals: Set<Int32>
  private let queue: DispatchQueue
  private let lock = Lock()
  private var next: ((UnixSignal) -> Void)?

  init(signals: Set<Int32>, queue: DispatchQueue, next: @escaping (UnixSignal) -> Void) {
    self.signals = signals
    self.queue = queue
    self.next = next
    LiveResources.opened(.producerObservers)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Delivers, in order and in one block on the delivery queue, those of `numbers` that this
  /// subscription wants. Each is checked against ``stop()`` just before its call.
  func deliver(_ numbers: some Sequence<UInt8>) {
    let wanted = numbers.lazy.map(Int32.init).filter(signals.contains).map(UnixSignal.init)
    let batch = Array(wanted)
    guard !batch.isEmpty else { return }
    queue.async { [self] in
      for signal in batch {
        guard let next = lock.withLock({ self.next }) else { return }
        next(signal)
      }
    }
  }

  /// Stops delivery: no call to the observer begins after this returns. Releases the observer
  /// (outside the lock, since releasing it may run deinitializers).
  func stop() {
    let released = lock.withLock {
      defer { next = nil }
      return next
    }
    _ = released
  }
}
