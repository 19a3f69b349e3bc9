/// The disconnects of the inner streams that an operator has connected and not yet ended
/// (`flatMap`), in the order they connected; ``SerialDisconnect`` for any number of them.
///
/// Every disconnect given to it is called exactly once: by ``end()``, or at once if the list has
/// ended. Its methods may be called from any thread and from inside the disconnects they call;
/// disconnects run after the lock is released.
///
/// It is thread-safe because a source may deliver values (and so append) on a thread of its own
/// while `unsubscribe()` runs where the subscription is.
@usableFromInline
final class DisconnectList {
  // Not `Sendable`, as `SerialDisconnect`: it crosses threads only inside `flatMap`, whose
  // values a source may deliver on a thread of its own while the subscription ends. The held
  // disconnects live inside the lock, and those taken out are called after the lock is released.
  // `FlatMapTests.noInnerStreamStaysConnectedAfterUnsubscribeOnAnotherThread` would see a
  // breach (under ThreadSanitizer, a race; otherwise an inner stream left connected).
  private let list = LockedState(List())

  /// The disconnects, in a struct (see ``SerialDisconnect``'s `Slot`).
  private struct List {
    var disconnects: ContiguousArray<Disconnect> = []
    var isEnded = false
  }

  /// An empty list that has not ended.
  @usableFromInline
  init() {}

  /// Holds `disconnect`, or calls it at once if the list has ended.
  @usableFromInline
  func append(_ disconnect: @escaping Disconnect) {
    let held = list.withLock { list in
      guard !list.isEnded else { return false }
      list.disconnects.append(disconnect)
      return true
    }
    if !held { disconnect() }
  }

  /// Calls every disconnect held, in the order they were appended, and every one appended later,
  /// at once. Calling it again does nothing.
  @usableFromInline
  func end() {
    var toCall: ContiguousArray<Disconnect> = []
    list.withLock { list in
      list.isEnded = true
      swap(&toCall, &list.disconnects)
    }
    for disconnect in toCall { disconnect() }
  }
}
