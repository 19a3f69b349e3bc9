import IndefiniteObservable
import Multicast
import Synchronization

/// What every reader of a descriptor stream owns for one subscription: its descriptor (the
/// stream's own, or a duplicate, see ``DescriptorHolder``), the reader's state, its subscriber
/// behind an `ObserverGate` (bound to the subscriber's actor, or, on `.sendingThread`, one
/// that runs on the reading thread, a call at a time), and the steps that end it.
/// The readers built on it (``SourceReader``, ``FilePasses``, ``ReadinessWatcher``) only read.
///
/// No queue of its own: a read runs on the thread that learned the descriptor has something
/// (the ``DescriptorPoller``'s thread, or the thread that asked a regular file for a refill),
/// and its chunk goes from there to the subscriber's actor, where it becomes values (see
/// ``ChunkDecoder``): one thread switch (none on
/// `.sendingThread`, where the gate calls the subscriber on that thread). The reads are
/// turns, one at a time, each inside ``withTurn(_:)``, which holds the reader's lock: so the
/// reader's state (a file position) needs no confinement of its own, and ``end()``
/// never closes the descriptor under a read. A reader hands over the chunk of one turn with
/// ``deliver(_:then:status:isolation:)``, and asks for its next turn only in the continuation, which
/// runs once the subscriber has received them (the gate runs it on the actor, after the
/// values): so a reader never reads ahead of a busy actor, holds one chunk at a time, and takes
/// turns with the other work of that actor (a timer's tick, another stream's chunk).
///
/// Ending: ``disconnect()`` (from any thread) closes the gate, so that no delivery begins after
/// it returns, ends the subscription's use of the holder, and ends the reader: once the turn
/// in progress, if any, is over, it ends the waits under way and gives the descriptor back to
/// the holder, closing it when the holder says so (after a call of the subscriber that uses
/// the descriptor, if one is under way: ``deliverUsingDescriptor(_:then:)``), and no turn
/// begins after it.
///
/// `Sendable`, checked: its mutable state is in a `LockedState`, the gate and the flag are
/// thread-safe, the rest is immutable. (It is the readers' one proof: the readers compose it,
/// and none of them makes a claim of its own.)
final class DescriptorReader<Chunk: Sendable, State: Sendable>: Sendable {
  /// The stream's descriptor, which the subscription's descriptor is (or duplicates).
  let holder: DescriptorHolder
  /// The descriptor this reader reads, and gives back (see ``DescriptorHolder/giveBack(_:)``).
  let fd: Int32
  private let observer: ObserverGate<DescriptorEvent<Chunk>>
  private let isDisconnected = Atomic(false)
  private let state: LockedState<Turns>

  private struct Turns: Sendable {
    var reader: State
    // The waits under way: ended by `end()`.
    var waits: Set<UInt64> = []
    // Whether the reader has ended: no turn begins once it has.
    var isEnding = false
    // Whether a call of the subscriber that uses the descriptor is under way
    // (`deliverUsingDescriptor`), and whether an end during it left the descriptor for that
    // call to give back once it has returned.
    var isLent = false
    var givesBackAfterCall = false
  }

  /// Takes over `fd`, a descriptor acquired from `holder`, for the subscription behind
  /// `observer` (made by ``DescriptorEvent/gate(next:status:isolation:)`` or
  /// ``DescriptorEvent/gate(next:status:)``); `state` is the reader's, reached in its turns.
  init(
    holder: DescriptorHolder, fd: Int32, state: State,
    observer: ObserverGate<DescriptorEvent<Chunk>>
  ) {
    self.holder = holder
    self.fd = fd
    self.state = LockedState(Turns(reader: state))
    self.observer = observer
    LiveResources.opened(.producerObservers)
  }

  deinit { LiveResources.closed(.producerObservers) }

  /// Whether the subscription has ended: no delivery begins once it has.
  var isCancelled: Bool { observer.isClosed }

  /// Runs one turn: `body` with the descriptor and the reader's state, under the reader's lock,
  /// unless the reader has ended (nil then). When the subscription has ended, ends the reader
  /// instead. `body` must only read and decode: send what it found after the turn.
  func withTurn<Result>(_ body: (Int32, inout State) -> Result) -> Result? {
    let result = state.withLock { turns -> Result?? in
      if turns.isEnding { return .some(nil) }
      if isCancelled { return nil }
      return .some(body(fd, &turns.reader))
    }
    guard let result else {
      end()
      return nil
    }
    return result
  }

  /// Hands `chunk` to the subscriber, on its actor, in order; then, unless the subscription
  /// ended meanwhile, runs `then` on that actor. False once the subscription has ended. Sent
  /// from the subscriber's actor (`isolation`, which the compiler passes, or, with none, the
  /// main thread for the main actor: ``ObserverGate/sendFromCurrentThread(_:)``), they are
  /// delivered before this returns; from elsewhere, in a turn of that actor.
  ///
  /// A `status` is reported after the chunk's values, in the same delivery: a turn that read to
  /// the end of a file says so with its bytes, in one call of the gate.
  @discardableResult
  func deliver(
    _ chunk: Chunk, then: (@Sendable () -> Void)? = nil, status: DescriptorStatus? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) -> Bool {
    send(.chunk(chunk, then: then, status: status))
  }

  /// Reports a status to the subscriber, on its actor, after the values handed over before
  /// (before this returns when sent from that actor, as ``deliver(_:then:status:isolation:)``).
  func report(_ status: DescriptorStatus, isolation: isolated (any Actor)? = #isolation) {
    send(.status(status))
  }

  /// Sends `event` to the gate from `isolation`; with none (the poller's thread), as the
  /// thread that read it: on the main thread (`MainLoop.run()`), a main-actor gate delivers at
  /// once.
  @discardableResult
  private func send(
    _ event: DescriptorEvent<Chunk>, isolation: isolated (any Actor)? = #isolation
  ) -> Bool {
    isolation == nil ? observer.sendFromCurrentThread(event) : observer.send(event)
  }

  /// The subscription's disconnect: stops delivery at once, releases the subscriber, ends the
  /// use of the descriptor, and ends the reader once the turn in progress, if any, is over.
  /// Idempotent.
  func disconnect() {
    guard !isDisconnected.exchange(true, ordering: .acquiringAndReleasing) else { return }
    observer.close()
    holder.endUse()
    end()
  }

  /// Ends the reader: ends the waits under way and gives the descriptor back, closing it when
  /// the holder says so (a duplicate always; the stream's own descriptor when its last use has
  /// ended). The poller ignores a wait that has ended. Runs once, after the turn in progress;
  /// during a call of ``deliverUsingDescriptor(_:then:)``, that call gives the descriptor back
  /// when it returns. A reader calls it itself when its stream has nothing more to give, and
  /// ``disconnect()`` calls it.
  func end() {
    let ended = state.withLock { turns -> (waits: Set<UInt64>, givesBack: Bool)? in
      guard !turns.isEnding else { return nil }
      turns.isEnding = true
      turns.givesBackAfterCall = turns.isLent
      defer { turns.waits = [] }
      return (turns.waits, !turns.isLent)
    }
    guard let ended else { return }
    for wait in ended.waits { DescriptorPoller.shared.cancel(wait) }
    if ended.givesBack { giveBack() }
  }

  /// Gives the descriptor back to the holder, and closes it when the holder says so.
  private func giveBack() {
    guard holder.giveBack(fd) else { return }
    System.close(fd)
    LiveResources.closed(.descriptors)
  }

  /// ``deliver(_:then:status:isolation:)``, from a thread of no actor, for a subscriber that uses the
  /// descriptor in its call: a readiness report on `.sendingThread`, whose subscriber reads or
  /// writes the descriptor there. An end during that call (an unsubscribe on another thread,
  /// or in the call) gives the descriptor back, closing it, only once the call has returned,
  /// so the call never uses a closed descriptor, nor another file given its number since.
  /// Nothing is delivered once the reader has ended.
  func deliverUsingDescriptor(_ chunk: Chunk, then: (@Sendable () -> Void)?) {
    let lent = state.withLock { turns -> Bool in
      guard !turns.isEnding else { return false }
      turns.isLent = true
      return true
    }
    guard lent else { return }
    observer.send(.chunk(chunk, then: then))
    let givesBack = state.withLock { turns -> Bool in
      turns.isLent = false
      defer { turns.givesBackAfterCall = false }
      return turns.givesBackAfterCall
    }
    if givesBack { giveBack() }
  }

  /// Waits, with ``DescriptorPoller``, until the descriptor has `events` (a regular file has
  /// `POLLIN` at once), then runs `ready` on the poller's thread, unless the reader has ended
  /// meanwhile; ``end()`` ends the wait.
  func wait(for events: Int16, then ready: @escaping @Sendable () -> Void) {
    let poller = DescriptorPoller.shared
    state.withLock { turns in
      guard !turns.isEnding else { return }
      // Registered under the lock: `ready`, which takes it, cannot run before the wait is known.
      let id = poller.wait(fd, for: events) { [self] id in
        let ended = state.withLock { turns -> Bool in
          turns.waits.remove(id)
          return turns.isEnding
        }
        if !ended { ready() }
      }
      turns.waits.insert(id)
    }
  }
}
