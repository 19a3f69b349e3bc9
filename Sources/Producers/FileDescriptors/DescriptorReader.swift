import Dispatch
import IndefiniteObservable
import Multicast
import Synchronization

/// What every reader of a descriptor stream owns for one subscription: its descriptor (the
/// stream's own, or a duplicate, see ``DescriptorHolder``), its private serial queue, its subscriber behind an `ObserverGate` bound
/// to the actor that made the stream, and the steps that end it. The readers below it
/// (``SourceReader``, ``FileReader``, ``ReadinessWatcher``) only read.
///
/// Reading happens on `queue`; delivery on the subscriber's actor. A reader hands over the
/// values of one chunk at a time with ``deliver(_:then:)``, and asks for its next read only in
/// the continuation, which runs once the subscriber has received them (the gate runs it on the
/// actor, after the values): so a reader never reads ahead of a busy actor, holds one chunk at a
/// time, and takes turns with the other work of that actor (a timer's tick, another stream's
/// chunk), each turn a hop of its own.
///
/// Ending, in order: ``disconnect()`` (from any thread) closes the gate, so that no delivery
/// begins after it returns, ends the subscription's use of the holder, and asks the queue to
/// ``end()`` the reader, after the turn in progress: that ends the wait under way and gives the
/// descriptor back to the holder, closing it when the holder says so, and no read begins after
/// it.
///
/// `@unchecked Sendable`: the subclasses' mutable state is used only on `queue`, one block at a
/// time (their reads and Dispatch handlers run there); the gate and `isDisconnected` are
/// thread-safe; the rest is immutable.
class DescriptorReader<Value: Sendable>: @unchecked Sendable {
  /// The stream's descriptor, which the subscription's descriptor is (or duplicates).
  let holder: DescriptorHolder
  /// The descriptor this reader reads, and gives back (see ``DescriptorHolder/giveBack(_:)``).
  let fd: Int32
  /// The serial queue on which the reader reads.
  let queue: DispatchQueue
  private let observer: ObserverGate<DescriptorEvent<Value>>
  private let isDisconnected = Atomic(false)
  // The wait under way, if any; used only on the queue.
  private var waiting: UInt64?
  /// Whether the reader has ended (``end()``); used only on the queue.
  private var isEnding = false

  /// Takes over `fd`, a descriptor acquired from `holder`, for a subscription of `observer`,
  /// which is called on `isolation` only; `queue` is a serial queue of the subscription's own.
  init(
    holder: DescriptorHolder, fd: Int32, queue: DispatchQueue,
    observer: DescriptorObserver<Value>, isolation: isolated any Actor
  ) {
    self.holder = holder
    self.fd = fd
    self.queue = queue
    self.observer = Self.gate(to: observer, isolation: isolation)
    LiveResources.opened(.producerObservers)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// The gate that calls `observer` on `isolation`: the values of a batch one by one, until the
  /// subscription ends (a subscriber may unsubscribe in the middle of a batch), then the
  /// batch's continuation if the subscription goes on.
  private static func gate(
    to observer: DescriptorObserver<Value>, isolation: isolated any Actor
  ) -> ObserverGate<DescriptorEvent<Value>> {
    let reference = GateReference<DescriptorEvent<Value>>()
    let gate = ObserverGate<DescriptorEvent<Value>>(isolation: isolation) { event in
      switch event {
      case .values(let values, let then):
        for value in values {
          guard reference.isOpen else { return }
          observer.next(value)
        }
        if reference.isOpen { then?() }
      case .status(let status): observer.status(status)
      }
    }
    reference.gate = gate
    return gate
  }

  /// Whether the subscription has ended: no delivery begins once it has.
  final var isCancelled: Bool { observer.isClosed }

  /// Hands `values` to the subscriber, on its actor, in order; then, unless the subscription
  /// ended meanwhile, runs `then` on that actor. False once the subscription has ended.
  @discardableResult
  final func deliver(_ values: [Value], then: (@Sendable () -> Void)? = nil) -> Bool {
    observer.send(.values(values, then: then))
  }

  /// Reports a status to the subscriber, on its actor, after the values handed over before.
  final func report(_ status: DescriptorStatus) {
    observer.send(.status(status))
  }

  /// Runs `work` on the reader's queue: the continuation of a delivery that asks for the next
  /// read.
  final func onQueue(_ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
    let queue = self.queue
    return { queue.async(execute: work) }
  }

  /// The subscription's disconnect: stops delivery at once, releases the subscriber, ends the
  /// use of the descriptor, and ends the reader on its queue, after the turn in progress, if
  /// any. Idempotent.
  final func disconnect() {
    guard !isDisconnected.exchange(true, ordering: .acquiringAndReleasing) else { return }
    observer.close()
    holder.endUse()
    queue.async { self.end() }
  }

  /// Whether a turn on the queue must stop: the reader has ended, or its subscription has, in
  /// which case the reader ends now. Each turn asks first.
  final var turnMustStop: Bool {
    if isEnding { return true }
    guard isCancelled else { return false }
    end()
    return true
  }

  /// Ends the reader, on the queue: ends the wait under way and gives the descriptor back,
  /// closing it when the holder says so (a duplicate always; the stream's own descriptor when
  /// its last use has ended). The poller ignores a descriptor whose wait has ended. Runs once; a reader calls it itself when its
  /// stream has nothing more to give, and ``disconnect()`` calls it.
  final func end() {
    guard !isEnding else { return }
    isEnding = true
    endWaiting()
    guard holder.giveBack(fd) else { return }
    System.close(fd)
    LiveResources.closed(.descriptors)
  }

  /// Waits, with ``DescriptorPoller``, until the descriptor has `events`, then runs `ready` on
  /// the queue; ``endWaiting()`` ends the wait. Call on the queue, one wait at a time.
  final func wait(for events: Int16, then ready: @escaping @Sendable () -> Void) {
    let queue = self.queue
    waiting = DescriptorPoller.shared.wait(fd, for: events) {
      queue.async {
        self.waiting = nil
        ready()
      }
    }
  }

  /// Ends the wait under way, if any, on the queue: its `ready` will not run (or, if the
  /// descriptor was ready already, runs and must check that the reader has ended).
  final func endWaiting() {
    guard let waiting else { return }
    self.waiting = nil
    DescriptorPoller.shared.cancel(waiting)
  }

}

/// One call of a descriptor stream's observer: the values of one chunk, with what to do once
/// the subscriber has them, or a status.
enum DescriptorEvent<Value: Sendable>: Sendable {
  case values([Value], then: (@Sendable () -> Void)?)
  case status(DescriptorStatus)
}

/// The gate, for the gate's own closure (which runs on its actor only) to ask whether the
/// subscription is still open.
///
/// A strong reference: the cycle it makes (gate, closure, reference, gate) ends when the gate
/// closes, which releases the closure. A weak one would give the gate a side table, which
/// LeakSanitizer reports as a leak when the program exits while the stream is subscribed (seen:
/// `follow` stopped by SIGTERM under load).
private final class GateReference<Value: Sendable> {
  var gate: ObserverGate<Value>?
  var isOpen: Bool { gate.map { !$0.isClosed } ?? false }
}
