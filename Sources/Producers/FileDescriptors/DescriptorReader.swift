import Dispatch
import IndefiniteObservable
import Multicast
import Synchronization

/// What every reader of a descriptor stream owns for one subscription: its duplicate of the
/// stream's descriptor, its serial delivery queue, its subscriber behind an `ObserverGate`, and
/// the steps that end it. The readers below it (``SourceReader``, ``FileReader``,
/// ``ReadinessWatcher``) only read.
///
/// Ending, in order: ``disconnect()`` (from any thread) closes the gate, so that no delivery
/// begins after it returns, ends the subscription's use of the holder, and calls ``stop()``;
/// the reader then stops reading and calls ``release()`` on the delivery queue once no read can
/// begin, which closes the duplicate.
///
/// `@unchecked Sendable`: the subclasses' mutable state is used only on `queue`, one block at a
/// time (their read passes and Dispatch handlers run there); the gate and `isDisconnected` are
/// thread-safe; the rest is immutable.
class DescriptorReader<Value>: @unchecked Sendable {
  /// The stream's descriptor, which the subscription's duplicate was made from.
  let holder: DescriptorHolder
  /// The duplicate this reader reads and closes.
  let fd: Int32
  /// The serial queue on which the reader reads and delivers.
  let queue: DispatchQueue
  private let observer: ObserverGate<DescriptorEvent<Value>>
  private let isDisconnected = Atomic(false)

  /// Takes over `fd`, a duplicate acquired from `holder`, for a subscription of `observer`.
  init(
    holder: DescriptorHolder, fd: Int32, queue: DispatchQueue,
    observer: DescriptorObserver<Value>
  ) {
    self.holder = holder
    self.fd = fd
    self.queue = queue
    self.observer = ObserverGate { event in
      switch event {
      case .value(let value): observer.next(value)
      case .status(let status): observer.status(status)
      }
    }
    LiveResources.opened(.producerObservers)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Whether the subscription has ended: no delivery begins once it has.
  final var isCancelled: Bool { observer.isClosed }

  /// Delivers a value on this thread; false once the subscription has ended.
  @discardableResult
  final func deliver(_ value: Value) -> Bool {
    observer.send(.value(value))
  }

  /// Delivers a status on this thread, unless the subscription has ended.
  final func report(_ status: DescriptorStatus) {
    observer.send(.status(status))
  }

  /// The subscription's disconnect: stops delivery at once, releases the subscriber, ends the
  /// use of the descriptor and stops reading. Idempotent.
  final func disconnect() {
    guard !isDisconnected.exchange(true, ordering: .acquiringAndReleasing) else { return }
    observer.close()
    holder.endUse()
    stop()
  }

  /// Stops reading; must lead to one call of ``release()`` on the delivery queue, after the
  /// last read. Called once, from any thread.
  func stop() {}

  /// Closes the duplicate, on the delivery queue, once nothing reads it any more.
  func release() {
    System.close(fd)
    LiveResources.closed(.descriptors)
  }
}

/// One call of a descriptor stream's observer: a value or a status.
enum DescriptorEvent<Value> {
  case value(Value)
  case status(DescriptorStatus)
}
