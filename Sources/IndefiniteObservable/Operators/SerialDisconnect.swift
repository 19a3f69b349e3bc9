/// The disconnect of one upstream connection at a time, for operators whose upstream changes
/// (`switchToLatest`) or ends before their subscription does (`prefix`); RxSwift's
/// `SerialDisposable`, for disconnects.
///
/// Every disconnect given to it is called exactly once: when it is replaced, taken by
/// ``disconnectCurrent()`` or ``end()``, or at once if the slot has ended. Its methods may be
/// called from any thread and from inside the disconnects they call; disconnects run after the
/// lock is released.
///
/// It is thread-safe because a source may deliver values on a thread of its own while
/// `unsubscribe()` runs where the subscription is.
@usableFromInline
final class SerialDisconnect {
  // Not `Sendable`: it crosses threads only inside the operators that use it, whose values a
  // source may deliver on a thread of its own while the subscription ends where it is. The held
  // disconnect lives inside the lock, and one taken out is called after the lock is released.
  private let slot = LockedState(Slot())

  /// The held disconnect, in a struct: a closure in a tuple or kept directly as a generic state
  /// would be wrapped in one more reabstraction thunk at every write-back of `withLock`.
  private struct Slot {
    var current: Disconnect?
    var isEnded = false
  }

  /// An empty slot that has not ended.
  @usableFromInline
  init() {}

  /// Holds `disconnect` and calls the one it replaces, if any; calls `disconnect` at once
  /// instead if the slot has ended. Returns whether it holds `disconnect`: false once the slot
  /// has ended.
  @usableFromInline
  @discardableResult
  func replace(with disconnect: @escaping Disconnect) -> Bool {
    var toCall: Disconnect? = disconnect
    let isHeld = slot.withLock { slot in
      if !slot.isEnded { swap(&toCall, &slot.current) }
      return !slot.isEnded
    }
    toCall?()
    return isHeld
  }

  /// Calls the disconnect held, if any, and holds nothing. The slot goes on taking new ones.
  @usableFromInline
  func disconnectCurrent() {
    var toCall: Disconnect?
    slot.withLock { slot in swap(&toCall, &slot.current) }
    toCall?()
  }

  /// Calls the disconnect held, if any, and every one given later, at once. Calling it again
  /// does nothing.
  @usableFromInline
  func end() {
    var toCall: Disconnect?
    slot.withLock { slot in
      slot.isEnded = true
      swap(&toCall, &slot.current)
    }
    toCall?()
  }
}
