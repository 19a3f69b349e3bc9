import IndefiniteObservable

/// The descriptor of one stream, shared by its subscriptions: each subscription takes a lease
/// and returns it once its reading has stopped for good (after its Dispatch source was
/// cancelled); an owned descriptor is closed when the last lease comes back, or when the stream
/// goes away without ever being subscribed.
///
/// `@unchecked Sendable`: `leases` and `closed` are read and written only under `lock`.
final class DescriptorHolder: @unchecked Sendable {
  let fd: Int32
  let ownership: DescriptorOwnership
  private let lock = Lock()
  private var leases = 0
  private var closed = false

  init(fd: Int32, ownership: DescriptorOwnership) {
    self.fd = fd
    self.ownership = ownership
  }

  deinit {
    if ownership == .streamCloses && !closed { System.close(fd) }
  }

  /// Takes a lease, or says why the descriptor cannot be used any more.
  func acquire() -> FileDescriptorError? {
    lock.withLock {
      if closed { return .closedByStream(fd) }
      guard System.isOpen(fd) else { return .notOpen(fd) }
      leases += 1
      return nil
    }
  }

  /// Returns a lease; closes an owned descriptor when it was the last one.
  func release() {
    let close = lock.withLock {
      leases -= 1
      guard leases == 0, ownership == .streamCloses else { return false }
      closed = true
      return true
    }
    if close { System.close(fd) }
  }
}

/// A flag that a disconnect sets from any thread and a reader checks before each delivery, so
/// that nothing is delivered after `unsubscribe()` returned on the delivery queue.
///
/// `@unchecked Sendable`: `value` is read and written only under `lock`.
final class CancellationFlag: @unchecked Sendable {
  private let lock = Lock()
  private var value = false

  var isCancelled: Bool { lock.withLock { value } }

  /// Sets the flag; true only for the first call.
  func cancel() -> Bool {
    lock.withLock {
      defer { value = true }
      return !value
    }
  }
}
