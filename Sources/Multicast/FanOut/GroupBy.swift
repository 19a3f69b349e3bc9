import IndefiniteObservable

extension ValueObservable {
  /// Splits this stream by key: passes on, the first time each key is seen, the key with a
  /// stream of the values that have it; RxSwift's `groupBy(keySelector:)` (Combine has none).
  ///
  /// ```swift
  /// let messages = Emitter<String>()  // "room: text"
  /// var heard: [String] = []
  /// let listening = messages.groupBy { String($0.prefix { $0 != ":" }) }
  ///   .flatMap { room, values in values.enumerated().map { "\(room) #\($0.offset)" } }
  ///   .subscribe { heard.append($0) }
  /// messages.send("lobby: hi")
  /// messages.send("dev: build is green")
  /// messages.send("lobby: bye")
  /// // heard == ["lobby #0", "dev #0", "lobby #1"]
  /// ```
  ///
  /// - What it passes on: for each value, `keySelector` gives its key. The first value of a key
  ///   in a subscription passes on `(key, values)` first, then sends the value into `values`;
  ///   every later value of that key is only sent into `values`. A subscriber that subscribes to
  ///   `values` while the pair is delivered (as `flatMap` does) therefore receives the value that
  ///   made the group, and every one after it. `values` replays nothing: subscribed later, it
  ///   delivers the values sent after, as RxSwift's groups, which are subjects, do. Each group is
  ///   an `Emitter`, handed out as a `ValueObservable`: any number of subscribers may share it,
  ///   and each value reaches them synchronously, in the order they subscribed.
  /// - Per subscription: each subscription connects this stream and has its own groups, made as
  ///   its values arrive; a key seen by one subscription is new to the next.
  /// - Ending: with no completion, a group never ends while its subscription lasts, and keeps
  ///   its key and its subscribers' closures until then. Unsubscribing disconnects this stream,
  ///   then ends every subscription of every group, in the order the groups were made: once
  ///   `unsubscribe()` returns, no group delivers again (a value being passed on when it runs,
  ///   from inside a delivery, is not sent into its group), and the groups' own `unsubscribe()`
  ///   does nothing more. RxSwift instead keeps
  ///   its source connected while any group has a subscriber; here the groups last as long as
  ///   the subscription that made them. A group's stream subscribed after that never delivers.
  /// - Threading: like every operator (see ``IndefiniteObservable/ValueObservable``): this stream
  ///   must not deliver on two threads at once, and the groups deliver where it delivers.
  ///   `keySelector` and the key's `hash(into:)` and `==` run on the delivering thread, once per
  ///   value, with no lock held. Unsubscribing may run on another thread: a group made there
  ///   meanwhile is ended too, never left subscribed.
  /// - Cost: a value of a known key costs a dictionary lookup and an `Emitter`'s send; a new key
  ///   makes an emitter, and passes on a pair.
  ///
  /// - Parameter keySelector: The key of a value.
  public func groupBy<Key: Hashable>(
    keySelector: @escaping (T) -> Key
  ) -> ValueObservable<(key: Key, values: ValueObservable<T>)> {
    ValueObservable<(key: Key, values: ValueObservable<T>)> { observer in
      // Read and written only where this stream delivers, one value at a time.
      var groups: [Key: Emitter<T>] = [:]
      let made = MadeGroups<T>()
      let upstream = self.subscribe { value in
        let key = keySelector(value)
        if let group = groups[key] {
          group.send(value)
          return
        }
        // Its subscribers are the user's, as many as they need.
        let group = Emitter<T>(keepingLast: 0).withoutSubscriberLimit()
        guard made.add(group) else { return }
        groups[key] = group
        observer.next((key: key, values: group))
        // Ended meanwhile (from inside this delivery, or on another thread): end what the pair's
        // subscriber subscribed to the group, rather than send to it.
        if made.isEnded {
          group.unsubscribeAll()
        } else {
          group.send(value)
        }
      }
      return {
        upstream.unsubscribe()
        made.end()
      }
    }
  }
}

/// The groups of one `groupBy` subscription, in the order they were made, for its unsubscribe
/// to end: the one piece of its state that two threads may touch, a delivery adding a group
/// while `unsubscribe()` ends them.
///
/// The lock guards only the list and the flag: no emitter is released and no subscriber runs
/// under it.
private final class MadeGroups<T> {
  private let state = LockedState(State())

  /// The list, in a struct (see `LockedState`).
  private struct State {
    var groups: [Emitter<T>] = []
    var isEnded = false
  }

  /// Keeps `group` to end it later; false, keeping nothing, when the subscription has ended.
  func add(_ group: Emitter<T>) -> Bool {
    state.withLock { state in
      guard !state.isEnded else { return false }
      state.groups.append(group)
      return true
    }
  }

  /// Whether ``end()`` has been called.
  var isEnded: Bool {
    state.withLock { $0.isEnded }
  }

  /// Ends every subscription of every group kept, in order, outside the lock; groups added
  /// later are refused. Calling it again does nothing.
  func end() {
    var ended: [Emitter<T>] = []
    state.withLock { state in
      state.isEnded = true
      swap(&ended, &state.groups)
    }
    for group in ended { group.unsubscribeAll() }
  }
}
