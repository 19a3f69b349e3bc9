import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The subscribers and last value of a multicast source (``Emitter``, ``CurrentValue``,
/// ``SendableEmitter``, ``SendableCurrentValue``): opaque, its members are the module's own.
///
/// **Send path.** `send` takes the lock only to copy the subscriber array (a retain: the array
/// is copy-on-write, so nothing is allocated), store the value and count the send; it then
/// releases the lock and calls each subscriber from that snapshot. Before each call it reads the
/// entry's atomic state: a plain subscriber that is still subscribed is called directly; any
/// other goes through `deliverSlowly` (limit, owner, replay in progress). Unsubscribing
/// stores "ended" into that state before it removes the entry, so no delivery begins after
/// `unsubscribe()` returns, at the price of one acquire load per delivery.
///
/// **No callback under the lock.** Subscribers, and the deinits of anything this type releases
/// (replaced last values, removed entries and the closures they hold), run after the lock is
/// released. A current value's Observation observers (`ValueRegistrar`) are told of a write
/// between two takings of the lock, before the one that stores the value, and after it.
///
/// A subscriber on a queue or an actor is an entry that hands each value to an ``ObserverGate``
/// (`GateDelivery`): the package's one way across threads, for both
/// (`MulticastStorage+GateSubscriptions.swift`).
///
/// `Sendable` only when `T` is, and then unchecked (a hand-proved claim of Multicast; it covers
/// the entries, which are not `Sendable`): the list, the last value and the counters live
/// inside the lock (`locked`), and the `pending` values of every entry are
/// read and written only inside it too; the rest is immutable. The entries hold the caller's
/// closures, which need not be `Sendable`: an `Emitter`'s or a `CurrentValue`'s storage is
/// reached only through its owner and its subscriptions' disconnects, none of them `Sendable`,
/// so it stays in one isolation; a `SendableEmitter`'s or a `SendableCurrentValue`'s, which any
/// thread may use, takes only closures that are `@Sendable` or run on their actor through a
/// gate. Checked in debug builds: a subscriber added to the storage of a sendable source must
/// come from a spelling that says it may be called from any thread (`Reach`), which
/// IsolationAssertionTests.aSendableSourceRefusesASubscriberOfOneIsolation sees fire in a child
/// process. A race in the lock's use is what ThreadSanitizer reports (`.ci/run`) in
/// MulticastStressTests.manyThreadsSendSubscribeAndUnsubscribeWithinTheContract.
public final class MulticastStorage<T> {
  /// What owns the storage, for diagnostics.
  enum Kind: String {
    case emitter = "Emitter"
    case currentValue = "CurrentValue"
    case sendableCurrentValue = "SendableCurrentValue"
    case sendableEmitter = "SendableEmitter"

    /// Whether any thread may use the source, and so call its subscribers.
    var isSendable: Bool { self == .sendableEmitter || self == .sendableCurrentValue }
  }

  /// Where a subscriber may be called from, as the spelling that subscribed it says.
  @usableFromInline enum Reach {
    /// Only in the isolation that subscribed: a closure of a single-isolation source.
    case oneIsolation
    /// From any thread: a `@Sendable` closure, or one that an `ObserverGate` holds.
    case anyThread
  }

  /// What the lock guards.
  @usableFromInline struct State {
    /// The subscribers, in subscription order, each in the slot its state records
    /// (``DeliveryState/slot``); nil where a subscription has left. Removing one empties its
    /// slot, so no later entry moves; emptied slots at the end are dropped at once, and the others
    /// when they outnumber the entries (``compact()``), so that each subscribe and each
    /// unsubscribe costs the same however many subscribers there are.
    @usableFromInline var entries: ContiguousArray<MulticastEntry<T>?> = []
    /// The number of entries (slots that are not nil).
    var count = 0
    /// The last value sent (or the current value of a ``CurrentValue``).
    @usableFromInline var last: T?
    /// The values kept before ``last``, oldest first, by a source that keeps more than one
    /// (`Emitter(keepingLast:)`); empty otherwise.
    var earlier = PendingValues<T>()
    /// Counts the values stored, for compare-and-send.
    @usableFromInline var version = 0
    /// Counts sends, for diagnostics; can be reset.
    @usableFromInline var sendCount = 0
    /// A current value's part in Observation, made at the first read of its value (before it,
    /// no one can be tracking the value); nil for an emitter. Never set back to nil.
    @usableFromInline var registrar: ValueRegistrar?
    var maxSubscribers = 100
    /// Called with ``count`` after each change of it, outside the lock (`onSubscriberCountChange`).
    var onCountChange: (@Sendable (Int) -> Void)?
    /// Whether the storage has warned that it has more subscribers than `maxSubscribers`: once.
    var hasWarned = false
    var nextID = 0
    var ownerBoundCount = 0
    /// The ``count`` at which a subscribe next ends the subscriptions whose owner is gone: twice
    /// the count after the last such sweep, so that a sweep, which reads every owner, is paid for
    /// by the subscribes since the last one.
    var sweepAt = State.minimumSweep

    /// The smallest ``sweepAt``.
    static var minimumSweep: Int { 32 }

    /// The report of ``count`` to make after the lock, if anyone asked for it.
    var countChange: CountChange? {
      onCountChange.map { CountChange(observer: $0, count: count) }
    }

    /// Stores the value that `value` holds as the last one (unless none is kept), counts it and
    /// returns the subscribers to call; `value` is left holding the value it replaced (or, when
    /// `keeping` values are kept, the one that fell out of them), to be released outside the
    /// lock.
    @inlinable
    mutating func store(_ value: inout T?, keeping: Int) -> ContiguousArray<MulticastEntry<T>?> {
      if keeping > 0 { swap(&value, &last) }
      if keeping > 1 { keepEarlier(&value, keeping: keeping) }
      version &+= 1
      sendCount &+= 1
      return entries  // A retain, not a copy.
    }

    /// What the first taking of the lock does in a send: it stores the value, unless the
    /// value's Observation observers must hear of it first.
    @usableFromInline enum FirstStep {
      /// The value was stored; these are the subscribers to call.
      case stored(ContiguousArray<MulticastEntry<T>?>)
      /// Nothing was stored: tell the registrar's observers, then store.
      case observed(ValueRegistrar)
    }

    /// Keeps the value that `last` held before (in `replaced`) among the earlier ones; leaves
    /// in `replaced` the oldest one once more than `keeping` are kept.
    @usableFromInline
    mutating func keepEarlier(_ replaced: inout T?, keeping: Int) {
      guard let previous = replaced.take() else { return }
      earlier.append(previous)
      if earlier.count >= keeping { replaced = earlier.popFirst() }
    }

    /// The values a subscriber that asks for a replay receives, oldest first.
    var kept: [T] {
      guard let last else { return [] }
      guard !earlier.isEmpty else { return [last] }
      return earlier.elements + [last]
    }

    /// Stores the value as ``store(_:keeping:)`` does, unless the storage has a registrar.
    @inlinable
    mutating func storeUnlessObserved(_ value: inout T?, keeping: Int) -> FirstStep {
      if let registrar { return .observed(registrar) }
      return .stored(store(&value, keeping: keeping))
    }

    /// Appends `entry` in the next slot.
    mutating func append(_ entry: MulticastEntry<T>) {
      entry.state.slot.store(entries.count, ordering: .relaxed)
      entries.append(entry)
      count += 1
      if entry.ownerID != nil { ownerBoundCount += 1 }
    }

    /// Takes the entry whose state is `state` out of its slot; nil if it has left already.
    mutating func remove(_ state: DeliveryState) -> MulticastEntry<T>? {
      let slot = state.slot.load(ordering: .relaxed)
      guard slot >= 0, slot < entries.count, let entry = entries[slot], entry.state === state
      else { return nil }
      state.slot.store(-1, ordering: .relaxed)
      count -= 1
      if entry.ownerID != nil { ownerBoundCount -= 1 }
      if slot == entries.count - 1 {
        // Each emptied slot is dropped once, here or by `compact`: constant time per removal.
        // (The indices and the subscript, not `last`: in this module's unspecialized code, `last`
        // of a non-empty list allocated once per call.)
        entries.removeLast()
        while let last = entries.indices.last, entries[last] == nil { entries.removeLast() }
      } else {
        entries[slot] = nil
      }
      if entries.count > State.minimumSweep && count * 2 < entries.count { compact() }
      return entry
    }

    /// Drops the emptied slots, keeping the entries in order.
    mutating func compact() {
      var kept: ContiguousArray<MulticastEntry<T>?> = []
      kept.reserveCapacity(count)
      for case let entry? in entries {
        entry.state.slot.store(kept.count, ordering: .relaxed)
        kept.append(entry)
      }
      entries = kept
    }
  }

  /// A number of subscribers to report, taken out of the lock to be reported after it.
  struct CountChange {
    let observer: @Sendable (Int) -> Void
    let count: Int

    func report() { observer(count) }
  }

  @usableFromInline let locked: LockedState<State>
  private let kind: Kind
  /// How many of the last values sent are kept: 1 for a current value and by default, 0 for
  /// an emitter that keeps none (whose `last` stays nil), more for one that keeps the values
  /// before the last in `earlier`.
  @usableFromInline let keeping: Int

  init(kind: Kind, last: T? = nil, keeping: Int = 1) {
    self.kind = kind
    self.locked = LockedState(State(last: last))
    self.keeping = max(keeping, 0)
  }

  // MARK: Sending

  /// Stores `value` as the last value (unless the storage keeps none) and delivers it to every
  /// current subscriber.
  ///
  /// A current value whose value has been read has a registrar (``State/registrar``), and its
  /// Observation observers hear of the value first: the lock is let go before the value is
  /// stored, the registrar's `willSet` is called, the value is stored under the lock taken
  /// again, then `didSet` is called, and then the subscribers. Without a registrar (an emitter,
  /// a current value never read), the value is stored at the first taking of the lock.
  @inlinable
  func send(_ value: T) {
    // A storage that keeps no value (an emitter's default) is handed none: no copy to make
    // and release.
    var replaced: T? = keeping > 0 ? value : nil
    let subscribers: ContiguousArray<MulticastEntry<T>?>
    switch locked.withLock({ $0.storeUnlessObserved(&replaced, keeping: keeping) }) {
    case .stored(let stored):
      subscribers = stored
    case .observed(let registrar):
      registrar.willSet()
      subscribers = locked.withLock { $0.store(&replaced, keeping: keeping) }
      registrar.didSet()
    }
    // The previous value (or this one, when none is kept) is released here, outside the lock.
    withExtendedLifetime(replaced) {}
    deliver(value, to: subscribers)
  }

  /// Calls every subscriber of `subscribers` that is still subscribed.
  ///
  /// `subscribers` keeps every entry alive until the loop ends, however the list changes
  /// meanwhile (a change copies the array, leaving this snapshot as it was), so each entry is
  /// borrowed from it rather than retained: a retain and a release are two atomic operations per
  /// delivery, most of what a delivery would cost otherwise.
  @inlinable
  func deliver(_ value: T, to subscribers: ContiguousArray<MulticastEntry<T>?>) {
    subscribers.withUnsafeBufferPointer { entries in
      for index in entries.indices {
        // An emptied slot is a null reference: skipped without a retain.
        guard let entry = entries[index].map(Unmanaged.passUnretained) else { continue }
        entry._withUnsafeGuaranteedRef { entry in deliver(value, to: entry) }
      }
    }
  }

  /// Calls `entry` if it is still subscribed.
  @inlinable
  func deliver(_ value: T, to entry: MulticastEntry<T>) {
    let state = entry.state.delivery
    if state == DeliveryState.fast {
      entry.next(value)  // The fast path: a plain subscriber that is still subscribed.
    } else if state == DeliveryState.bound, let owner = entry.owner {
      entry.boundNext?(owner, value)  // An owner-bound subscriber whose owner is alive.
    } else {
      deliverSlowly(value, to: entry)
    }
  }

  /// Delivers to an entry that the send loop does not call directly: one that has ended, lost
  /// its owner, is receiving its replay, or has a limit that it counts.
  @usableFromInline
  func deliverSlowly(_ value: T, to entry: MulticastEntry<T>) {
    var state = entry.state.delivery
    if state == DeliveryState.replaying {
      // The replay must arrive first: park the value for the replaying thread to deliver.
      let parked: Bool = locked.withLock { _ in
        guard entry.state.delivery == DeliveryState.replaying else { return false }
        entry.pending.append(value)
        return true
      }
      if parked { return }
      state = entry.state.delivery
    }
    if state == DeliveryState.fast {
      entry.next(value)
    } else if state == DeliveryState.bound {
      call(value, entry)
    } else if state == DeliveryState.active {
      callSynchronously(value, entry)
    }
  }

  /// Calls the subscriber of `entry` on this thread, if its limit and owner allow.
  private func callSynchronously(_ value: T, _ entry: MulticastEntry<T>) {
    guard !entry.isLimited || takeDelivery(from: entry.state) else { return }
    call(value, entry)
  }

  /// Calls the subscriber unless its owner is gone, in which case the subscription ends.
  private func call(_ value: T, _ entry: MulticastEntry<T>) {
    if !entry.call(value) { end(entry.state) }
  }

  /// Takes one of a limited subscription's deliveries, where the value is delivered: on the
  /// sending thread for a subscriber that the send loop calls, on its actor or queue for one
  /// that a gate delivers to. True for an unlimited subscription, and for a limited one with
  /// deliveries left, exactly as many times as its limit, however many threads deliver at once.
  /// Taking the last delivery removes the entry from the list (a gate's entry, let go of, closes
  /// its gate), while the subscription stays active, so that the last value is delivered.
  @usableFromInline
  func takeDelivery(from state: DeliveryState) -> Bool {
    guard state.isLimited else { return true }
    let before = state.takeDelivery()
    if before == 1 { remove(state) }
    return before > 0
  }

  // MARK: Subscribing

  /// Adds a subscriber of the source's own isolation and returns the disconnect that ends it.
  ///
  /// - Parameters:
  ///   - replay: Deliver the last value, if there is one, before any later value.
  ///   - limit: End after this many deliveries (the replay included); nil for no limit. A
  ///     non-positive limit delivers nothing: the subscription has ended when this returns.
  func subscribe(
    _ subscriber: MulticastSubscriber<T>,
    replay: Bool = false,
    limit: Int? = nil
  ) -> Disconnect {
    let state = add(
      subscriber, reach: .oneIsolation, replay: replay, state: DeliveryState(limit: limit))
    // The disconnect keeps the storage, not the emitter: when the emitter goes, its deinit ends
    // every subscription, so all that a subscription left behind keeps is this small object. A
    // strong reference rather than a weak one: a weak reference gives the storage a side table,
    // which LeakSanitizer reports as a leak when the storage lives as long as the process.
    return { self.end(state) }
  }

  /// Adds a subscriber and returns `delivery`, its entry's state, which says when the storage
  /// has ended the subscription (by `endAll`, a limit or a lost owner);
  /// ``end(_:)`` ends it. Parameters as for ``subscribe(_:replay:limit:)``;
  /// `reach` says where the subscriber may be called from; `delivery` counts its limit, here
  /// when `countsHere`, otherwise where its gate delivers (``takeDelivery(from:)``); `queue`,
  /// for the description, is that of its gate.
  ///
  /// The replay is delivered on this thread, outside the lock, before any later send's value:
  /// sends that reach the entry meanwhile park their values in it. A gate's subscriber receives
  /// it as any value, handed to its gate, and so before those values on its queue or actor too.
  @usableFromInline
  func add(
    _ subscriber: MulticastSubscriber<T>,
    reach: Reach,
    queue: DispatchQueue? = nil,
    replay: Bool = false,
    state delivery: DeliveryState,
    countsHere: Bool = true
  ) -> DeliveryState {
    assert(
      reach == .anyThread || !kind.isSendable,
      "\(kind.rawValue)<\(T.self)>, which any thread may use, was given a subscriber of one isolation"
    )
    // A limit of zero or less: ended from the start.
    guard delivery.delivery != DeliveryState.ended else { return delivery }
    let (entry, replayed, overLimit, sweep, counted) = locked.withLock { state in
      state.nextID += 1
      let replaysHere = replay && state.last != nil
      let entry = MulticastEntry(
        id: state.nextID, subscriber: subscriber, queue: queue, state: delivery,
        countsHere: countsHere, replaying: replaysHere)
      state.append(entry)
      let sweeps = state.count >= state.sweepAt
      // Until this sweep is done: one at a time is enough.
      if sweeps { state.sweepAt = Int.max }
      let overLimit = state.count > state.maxSubscribers && !state.hasWarned
      return (entry, replaysHere ? state.kept : [], overLimit, sweeps, state.countChange)
    }
    counted?.report()
    // Amortized constant time: a sweep reads every owner, once the count has doubled since the
    // last one.
    if sweep {
      sweepLostOwners()
      locked.withLock { $0.sweepAt = max(State.minimumSweep, $0.count * 2) }
    }
    if overLimit { warnIfOverLimit() }
    if !replayed.isEmpty { deliverReplay(replayed, to: entry) }
    return entry.state
  }

  /// Says once, on standard error, that the source has more subscribers than its
  /// `maxSubscribers`: a likely leak made visible, as Node's `EventEmitter` does, while the
  /// program goes on (a list of 150 cells may observe one value legitimately). Only the
  /// subscriptions that have not lost their owner count, so the owners are read, once the
  /// count passes the limit, until the warning has been given.
  private func warnIfOverLimit() {
    let count = subscriberCount
    let limit: Int? = locked.withLock { state in
      guard count > state.maxSubscribers, !state.hasWarned else { return nil }
      state.hasWarned = true
      return state.maxSubscribers
    }
    guard let limit else { return }
    let warning = """
      warning: \(kind.rawValue)<\(T.self)> has \(count) subscribers, more than its \
      maxSubscribers (\(limit)): subscriptions may be leaking. Raise maxSubscribers if this many \
      is intended; this is said once per source.

      """
    var bytes = Array(warning.utf8)
    #if canImport(Darwin)
      _ = Darwin.write(STDERR_FILENO, &bytes, bytes.count)
    #elseif canImport(Glibc)
      _ = Glibc.write(STDERR_FILENO, &bytes, bytes.count)
    #elseif canImport(Musl)
      _ = Musl.write(STDERR_FILENO, &bytes, bytes.count)
    #endif
  }

  /// Delivers a synchronous subscriber's replay, then the values parked while it ran, until
  /// none are left; then the entry receives values directly.
  private func deliverReplay(_ replay: [T], to entry: MulticastEntry<T>) {
    var batch = replay
    while true {
      for value in batch {
        guard entry.state.delivery == DeliveryState.replaying else { return }
        callSynchronously(value, entry)
      }
      batch = locked.withLock { _ in
        let parked = entry.pending
        entry.pending = []
        if parked.isEmpty {
          _ = entry.state.exchange(DeliveryState.replaying, for: entry.activeState)
        }
        return parked
      }
      if batch.isEmpty { return }
    }
  }

  // MARK: Ending subscriptions

  /// Ends the subscription whose entry's state is `state`: no delivery to it begins after this
  /// returns. Idempotent.
  @usableFromInline
  func end(_ state: DeliveryState) {
    state.end()
    remove(state)
  }

  /// Drops the entry whose state is `state` from the list, in constant time (amortized); its
  /// closure is released outside the lock.
  private func remove(_ state: DeliveryState) {
    let (removed, counted) = locked.withLock { locked in
      let removed = locked.remove(state)
      return (removed, removed == nil ? nil : locked.countChange)
    }
    withExtendedLifetime(removed) {}
    counted?.report()
  }

  /// Ends every subscription for which `shouldEnd` is true (every one when nil).
  func endAll(where shouldEnd: ((MulticastEntry<T>) -> Bool)? = nil) {
    var ended: ContiguousArray<MulticastEntry<T>?> = []
    let counted = locked.withLock { state in
      if let shouldEnd {
        var kept: ContiguousArray<MulticastEntry<T>?> = []
        for case let entry? in state.entries {
          if shouldEnd(entry) { ended.append(entry) } else { kept.append(entry) }
        }
        state.entries = kept
        state.compact()  // Renumbers the slots of the entries kept.
      } else {
        swap(&ended, &state.entries)
      }
      for case let entry? in ended {
        entry.state.end()
        entry.state.slot.store(-1, ordering: .relaxed)
        state.count -= 1
        if entry.ownerID != nil { state.ownerBoundCount -= 1 }
      }
      return ended.isEmpty ? nil : state.countChange
    }
    withExtendedLifetime(ended) {}
    counted?.report()
  }

  /// Replaces the closure called after each change of the number of subscribers; the one it
  /// replaces is released outside the lock.
  func setOnCountChange(_ body: (@Sendable (Int) -> Void)?) {
    let replaced = locked.withLock { state in
      defer { state.onCountChange = body }
      return state.onCountChange
    }
    withExtendedLifetime(replaced) {}
  }

  /// Describes the source and each subscription, for `debugDescription`. Owners are read
  /// outside the lock (reading a weak reference may release the last strong one).
  func describe() -> String {
    let (entries, count) = locked.withLock { ($0.entries, $0.count) }
    var lines = ["\(kind.rawValue)<\(T.self)>: \(count) subscriber\(count == 1 ? "" : "s")"]
    for case let entry? in entries {
      var parts = ["#\(entry.id)"]
      if let queue = entry.queue { parts.append("on queue \(queue.label)") }
      if entry.ownerID != nil {
        parts.append(entry.owner.map { "owner \(type(of: $0))" } ?? "owner gone")
      }
      if entry.state.isLimited {
        parts.append("\(max(entry.state.remaining.load(ordering: .relaxed), 0)) values left")
      }
      lines.append("  " + parts.joined(separator: ", "))
    }
    return lines.joined(separator: "\n")
  }

  /// What the emitter or current value does when it goes: ends every subscription and releases
  /// the last value, outside the lock. The storage itself lives on, empty, for as long as a
  /// subscription's disconnect refers to it.
  func close() {
    endAll()
    let released = locked.withLock { state in
      defer {
        state.last = nil
        state.earlier = PendingValues()
      }
      return (state.last, state.earlier)
    }
    withExtendedLifetime(released) {}
  }

  /// Ends the subscriptions whose owner has been deallocated. Owners are checked outside the
  /// lock: reading a weak reference can release the last strong one and run a deinit.
  ///
  /// It reads every owner: `subscribe` calls it only once the count has doubled since the last
  /// sweep, which keeps each subscribe's share of it constant.
  func sweepLostOwners() {
    let entries: ContiguousArray<MulticastEntry<T>?> = locked.withLock { state in
      state.ownerBoundCount > 0 ? state.entries : []
    }
    for case let entry? in entries where entry.hasLostItsOwner { end(entry.state) }
  }

  // MARK: Reading

  /// The number of subscribers, after ending those whose owner is gone (which reads every
  /// owner when there are owner-bound subscribers: a diagnostic, not for a loop).
  var subscriberCount: Int {
    sweepLostOwners()
    return locked.withLock { $0.count }
  }

  /// Sets `maxSubscribers` unless it is below the number of subscribers whose owner, if they
  /// have one, is alive; then it stays as it was.
  func setMaxSubscribers(_ limit: Int) throws(MaxSubscribersBelowCount) {
    sweepLostOwners()
    let refusedCount: Int? = locked.withLock { state in
      guard limit >= state.count else { return state.count }
      state.maxSubscribers = limit
      return nil
    }
    if let refusedCount {
      throw MaxSubscribersBelowCount(requested: limit, subscriberCount: refusedCount)
    }
  }

  /// The last value and its version, for compare-and-send.
  ///
  /// Inlinable, so that it is specialized where it is used: unspecialized, each call looked up
  /// the metadata of its result's tuple type (about 100 ns a read, in `Benchmarks/`).
  @inlinable
  func read() -> (value: T?, version: Int) {
    locked.withLock { ($0.last, $0.version) }
  }

  /// A current value's value, as its `value` getter reads it: the read is recorded for
  /// Observation, in the registrar that the first read makes (see ``ValueRegistrar``).
  @inlinable
  func readValue() -> T {
    let (value, registrar) = locked.withLock { ($0.last!, $0.registrar) }
    (registrar ?? firstRegistrar()).access()
    return value
  }

  /// Gives a current value its registrar, at the first read of its value. It is made outside
  /// the lock; when another thread has given it one meanwhile, that one is kept, and the one
  /// made here is released after the lock is let go.
  @usableFromInline
  func firstRegistrar() -> ValueRegistrar {
    let made = ValueRegistrar()
    return locked.withLock { state in
      if let kept = state.registrar { return kept }
      state.registrar = made
      return made
    }
  }

  /// Writes `value` as a current value's new value, unless `isEqual` says it equals the
  /// current one. `isEqual` runs outside the lock; a write from another thread between its read
  /// and the store makes it compare again.
  @inlinable
  func write(_ value: T, unlessEqual isEqual: ((T, T) -> Bool)?) {
    guard let isEqual else { return send(value) }
    while true {
      let (current, version) = read()
      if isEqual(current!, value) { return }
      if send(value, ifVersion: version) { return }
    }
  }

  /// Changes a current value with `body`, atomically: `body` runs again on the new value when
  /// another thread wrote between its read and the store. A result that `isEqual` says equals
  /// the value read is not written.
  func update(unlessEqual isEqual: ((T, T) -> Bool)?, _ body: (inout T) -> Void) {
    while true {
      let (current, version) = read()
      var value = current!
      body(&value)
      if let isEqual, isEqual(current!, value) { return }
      if send(value, ifVersion: version) { return }
    }
  }

  /// Sends `value` if no value was stored since `version` was read; false otherwise.
  ///
  /// A current value's Observation observers hear of it as of ``send(_:)``, once the first
  /// taking of the lock has found the version unchanged. When another write is stored between
  /// that and the second (another thread's, or one made by an observer that `willSet` called),
  /// the value is not stored, the observers have been told all the same, beside that write's own
  /// telling, and the caller compares again.
  @inlinable
  func send(_ value: T, ifVersion expected: Int) -> Bool {
    var replaced: T? = value
    var registrar: ValueRegistrar?
    var subscribers: ContiguousArray<MulticastEntry<T>?>? = locked.withLock { state in
      guard state.version == expected else { return nil }
      registrar = state.registrar
      return registrar == nil ? state.store(&replaced, keeping: keeping) : nil
    }
    if let registrar {
      registrar.willSet()
      subscribers = locked.withLock { state in
        state.version == expected ? state.store(&replaced, keeping: keeping) : nil
      }
      registrar.didSet()
    }
    guard let subscribers else { return false }
    withExtendedLifetime(replaced) {}
    deliver(value, to: subscribers)
    return true
  }
}

extension MulticastStorage: @unchecked Sendable where T: Sendable {}
