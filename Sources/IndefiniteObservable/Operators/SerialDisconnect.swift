import Synchronization

/// The disconnect of one upstream connection at a time, for operators whose upstream changes
/// (`switchToLatest`) or ends before their subscription does (`prefix`); RxSwift's
/// `SerialDisposable`, for disconnects.
///
/// Every disconnect given to it is called exactly once: when it is replaced, taken by
/// ``disconnectCurrent()`` or ``end()``, or at once if the slot has ended. Its methods may be
/// called from any thread and from inside the disconnects they call; disconnects run after the
/// lock is released.
///
/// It is thread-safe because `Subscription.unsubscribe()` may run on another thread than the one
/// delivering values.
@usableFromInline
final class SerialDisconnect: @unchecked Sendable {
  // `@unchecked Sendable`: `current` and `isEnded` are read and written only inside
  // `lock.withLock`, and a disconnect taken out is called after the lock is released. They are
  // beside the `Mutex` rather than in it because a disconnect is not `Sendable` (as in
  // `Subscription`).
  private let lock = Mutex(())
  private var current: Disconnect?
  private var isEnded = false

  /// An empty slot that has not ended.
  @usableFromInline
  init() {}

  /// Holds `disconnect` and calls the one it replaces, if any; calls `disconnect` at once
  /// instead if the slot has ended.
  @usableFromInline
  func replace(with disconnect: @escaping Disconnect) {
    var toCall: Disconnect? = disconnect
    lock.withLock { _ in
      if !isEnded { swap(&toCall, &current) }
    }
    toCall?()
  }

  /// Calls the disconnect held, if any, and holds nothing. The slot goes on taking new ones.
  @usableFromInline
  func disconnectCurrent() {
    var toCall: Disconnect?
    lock.withLock { _ in swap(&toCall, &current) }
    toCall?()
  }

  /// Calls the disconnect held, if any, and every one given later, at once. Calling it again
  /// does nothing.
  @usableFromInline
  func end() {
    var toCall: Disconnect?
    lock.withLock { _ in
      isEnded = true
      swap(&toCall, &current)
    }
    toCall?()
  }
}
