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
/// A stream that owns its descriptor (``DescriptorOwnership/streamCloses``) lends the descriptor
/// itself to its first subscription, so following a file costs one descriptor, not two. Every
/// other subscription, and every subscription of a descriptor the caller keeps, reads a
/// close-on-exec duplicate of its own, made by ``acquire()``. A subscription gives its
/// descriptor back with ``giveBack(_:)`` once the poller has let go of it (its reader's end, on
/// its queue), and closes it when told to. So a descriptor is never closed while a wait on it is
/// under way, a caller's descriptor is never waited on (closing it after `unsubscribe()` returns
/// is always safe), and a number reused later can never be confused with it.
///
/// An owned descriptor is closed when the last active subscription disconnects (by the lent
/// subscription's reader, at its end, when it is the last to let go), or when the stream goes
/// away without ever being subscribed; a subscription made after that is refused with
/// ``FileDescriptorError/closedByStream(_:)``.
///
final class DescriptorHolder: Sendable {
  let fd: Int32
  let ownership: DescriptorOwnership
  // How many subscriptions use the descriptor, whether its last use ended (an owned
  // descriptor is then closed, or about to be by the subscription it is lent to), and whether
  // it is lent to a subscription, whose reader has not given it back yet.
  private let state = LockedState((active: 0, closed: false, lent: false))

  init(fd: Int32, ownership: DescriptorOwnership) {
    self.fd = fd
    self.ownership = ownership
    if ownership == .streamCloses { LiveResources.opened(.descriptors) }
  }

  deinit {
    if ownership == .streamCloses && !state.withLock({ $0.closed }) { close() }
  }

  /// Starts one subscription's use: the descriptor the subscription reads, which it owns until
  /// it gives it back with ``giveBack(_:)``, or why there is none. The first subscription of an
  /// owned descriptor gets the descriptor itself; the others a close-on-exec duplicate. Each
  /// success must be matched by ``endUse()``.
  func acquire() -> Result<Int32, FileDescriptorError> {
    state.withLock { state in
      if state.closed { return .failure(.closedByStream(fd)) }
      // Nothing used it yet (an owned descriptor is closed once its uses end): lend it.
      if ownership == .streamCloses && state.active == 0 && !state.lent {
        state.active = 1
        state.lent = true
        return .success(fd)
      }
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

  /// Ends one subscription's use; closes an owned descriptor when it was the last, unless it is
  /// lent, in which case the subscription it is lent to closes it when it gives it back.
  func endUse() {
    let close = state.withLock { state in
      state.active -= 1
      guard state.active == 0, ownership == .streamCloses else { return false }
      state.closed = true
      return !state.lent
    }
    if close { self.close() }
  }

  /// Gives back `descriptor`, which ``acquire()`` returned, once nothing waits on it any more:
  /// whether the caller must now close it (and count it closed). A duplicate is always closed;
  /// the lent descriptor only when every use has ended, else the holder keeps it until then.
  func giveBack(_ descriptor: Int32) -> Bool {
    state.withLock { state in
      // While it is lent the descriptor is open, so no duplicate has its number.
      guard state.lent, descriptor == fd else { return true }
      state.lent = false
      return state.closed
    }
  }

  /// Closes the owned descriptor.
  private func close() {
    System.close(fd)
    LiveResources.closed(.descriptors)
  }
}
