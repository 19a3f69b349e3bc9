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
  /// The queue the subscriber asked for, which `queue` targets; nil when it asked for none.
  let target: DispatchQueue?
  private let observer: ObserverGate<DescriptorEvent<Value>>
  private let isDisconnected = Atomic(false)

  /// Takes over `fd`, a duplicate acquired from `holder`, for a subscription of `observer`;
  /// `queue` is a serial queue of the subscription's own that targets `target`.
  init(
    holder: DescriptorHolder, fd: Int32, queue: DispatchQueue, target: DispatchQueue?,
    observer: DescriptorObserver<Value>
  ) {
    self.holder = holder
    self.fd = fd
    self.queue = queue
    self.target = target
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

  /// Runs `work` on the delivery queue once the work already waiting on the target queue has
  /// run: how a reader that has more to read lets the other streams on that queue have a turn.
  ///
  /// A serial queue that targets another runs every block it holds before the target runs
  /// anything else, so a reader that asked its own queue for the next read would keep the
  /// target to itself for as long as the data lasts. Asked through the target, the next read
  /// waits behind what is already waiting there: a timer's tick, a signal, another stream's
  /// chunk. Without a target the delivery queue runs on Dispatch's shared threads, beside other
  /// queues rather than taking turns with them, and the next read is asked of it directly.
  final func continueAfterOthers(_ work: @escaping @Sendable () -> Void) {
    let queue = self.queue
    guard let target else { return queue.async(execute: work) }
    target.async { queue.async(execute: work) }
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
