import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

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
final class DescriptorHolder: Sendable {
  let fd: Int32
  let ownership: DescriptorOwnership
  // How many subscriptions use the descriptor, and whether the holder closed it.
  private let state = LockedState((active: 0, closed: false))

  init(fd: Int32, ownership: DescriptorOwnership) {
    self.fd = fd
    self.ownership = ownership
    if ownership == .streamCloses { LiveResources.opened(.descriptors) }
  }

  deinit {
    if ownership == .streamCloses && !state.withLock({ $0.closed }) { close() }
  }

  /// Starts one subscription's use: a close-on-exec duplicate of the descriptor, which the
  /// subscription owns, or why there is none. Each success must be matched by ``endUse()``.
  func acquire() -> Result<Int32, FileDescriptorError> {
    state.withLock { state in
      if state.closed { return .failure(.closedByStream(fd)) }
      switch System.duplicate(fd) {
      case .success(let duplicate):
        LiveResources.opened(.descriptors)
        state.active += 1
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
    let close = state.withLock { state in
      state.active -= 1
      guard state.active == 0, ownership == .streamCloses else { return false }
      state.closed = true
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
