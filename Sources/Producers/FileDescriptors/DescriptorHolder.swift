import Dispatch
import IndefiniteObservable

/// The descriptor a stream was made with, shared by the stream's subscriptions.
///
/// Each subscription reads (and hands to Dispatch) a duplicate of the descriptor of its own,
/// made by ``acquire()`` and closed by the subscription once Dispatch has let go of it. So the
/// caller's descriptor is never registered with Dispatch: closing it after `unsubscribe()`
/// returns is always safe, and a number reused later can never be confused with it.
///
/// An owned descriptor (``DescriptorOwnership/streamCloses``) is closed when the last active
/// subscription disconnects, or when the stream goes away without ever being subscribed; a
/// subscription made after that is refused with ``FileDescriptorError/closedByStream(_:)``.
///
/// `@unchecked Sendable`: `active` and `closed` are read and written only under `lock`.
final class DescriptorHolder: @unchecked Sendable {
  let fd: Int32
  let ownership: DescriptorOwnership
  private let lock = Lock()
  private var active = 0
  private var closed = false

  init(fd: Int32, ownership: DescriptorOwnership) {
    self.fd = fd
    self.ownership = ownership
    if ownership == .streamCloses { LiveResources.opened(.descriptors) }
  }

  deinit {
    if ownership == .streamCloses && !closed { close() }
  }

  /// Starts one subscription's use: a close-on-exec duplicate of the descriptor, which the
  /// subscription owns, or why there is none. Each success must be matched by ``endUse()``.
  func acquire() -> Result<Int32, FileDescriptorError> {
    lock.withLock {
      if closed { return .failure(.closedByStream(fd)) }
      switch System.duplicate(fd) {
      case .success(let duplicate):
        LiveResources.opened(.descriptors)
        active += 1
        return .success(duplicate)
      case .failure(let errno) where errno.rawValue == EBADF:
        return .failure(.notOpen(fd))
      case .failure(let errno):
        return .failure(.duplicateFailed(fd, errno))
      }
    }
  }

  /// Ends one subscription's use; closes an owned descriptor when it was the last.
  func endUse() {
    let close = lock.withLock {
      active -= 1
      guard active == 0, ownership == .streamCloses else { return false }
      closed = true
      return true
    }
    if close { self.close() }
  }

  /// Closes the owned descriptor.
  private func close() {
    System.close(fd)
    LiveResources.closed(.descriptors)
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

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
