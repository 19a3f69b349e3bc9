import IndefiniteObservable
import Multicast

/// A stream read from a file descriptor, written once for both places its subscriber can run:
/// values on `next`, and end of file, truncation and failure on `status`. Made by
/// ``FileDescriptors``.
///
/// It is a `Producer` with a second channel: a `Sendable` recipe that any code may make and
/// subscribe, with the spellings of `Producer`.
///
/// ```swift
/// let lines = try FileDescriptors.lines(of: pipeReadEnd, ownership: .streamCloses)
/// lines.subscribe(next: { print($0) }, status: { print($0) })  // on the caller's actor
/// lines.subscribe(on: .sendingThread, next: { print($0) })  // on the thread that reads
/// lines.stream().map { $0.count }.subscribe { print($0) }  // operators, on the caller's actor
/// ```
///
/// - Threading: any thread may subscribe, at once; each subscription connects anew, on the
///   subscribing thread, inside `subscribe` (where a regular file's first pass is read and
///   delivered). ``subscribe(isolation:next:status:)`` runs both channels on the caller's
///   actor, one call at a time and in order; ``subscribe(on:next:status:)`` runs them on the
///   thread that reads, one call at a time and in order.
/// - Lifetime: each subscription lives until it is ended, from any thread; dropping it does not
///   end it. Once `unsubscribe()` returns no call of `next` or `status` begins, and the
///   subscription's descriptor is closed once nothing waits on it (``DescriptorOwnership``).
/// - Failure: a subscription that cannot start (its duplicate of a descriptor cannot be made,
///   or the stream already closed its descriptor) reports
///   ``DescriptorStatus/failed(_:)`` on its status channel and reads nothing: on the caller's
///   actor after `subscribe` has returned, or, on `.sendingThread`, on the subscribing thread
///   before `subscribe` returns.
public struct DescriptorProducer<Value: Sendable>: Sendable {
  /// Makes one subscriber's gate, on its actor, and starts its reader on it.
  let startOnActor:
    @Sendable (
      isolated any Actor, @escaping (Value) -> Void, @escaping (DescriptorStatus) -> Void
    ) throws(FileDescriptorError) -> Reader
  /// Makes one subscriber's gate, for the thread that reads, and starts its reader on it.
  let startOnThread:
    @Sendable (
      @escaping @Sendable (Value) -> Void, @escaping @Sendable (DescriptorStatus) -> Void
    ) throws(FileDescriptorError) -> Reader
  /// For a regular file, what makes it read again; nil: read once.
  let refill: Producer<Void>?

  /// A reader started for one subscription: what lets it go (``DescriptorReader/disconnect()``,
  /// which closes the subscriber's gate first), and, for a regular file, the reader to ask for
  /// passes (its first pass not yet asked for).
  struct Reader: Sendable {
    let disconnect: @Sendable () -> Void
    let file: FilePasses?
  }

  /// A stream whose readers hand over `Decoder.Chunk`s, which each subscription decodes with a
  /// copy of `decoder` where it delivers: on its actor, or on the thread that read them.
  ///
  /// Generic, and called by ``FileDescriptors``' factories with their decoder's type, so that
  /// the closures it makes, which decode and deliver each value, run specialized for it.
  init<Decoder: ChunkDecoder>(
    decoder: Decoder, refill: Producer<Void>?,
    start:
      @escaping @Sendable (ObserverGate<DescriptorEvent<Decoder.Chunk>>)
      throws(FileDescriptorError) -> Reader
  ) where Decoder.Value == Value {
    self.refill = refill
    startOnActor = { (isolation, next, status) throws(FileDescriptorError) in
      var decoder = decoder
      let reference = GateReference<DescriptorEvent<Decoder.Chunk>>()
      let gate = ObserverGate<DescriptorEvent<Decoder.Chunk>>(isolation: isolation) { event in
        reference.gate?.deliver(event, decoding: &decoder, next: next, status: status)
      }
      reference.gate = gate
      return try Self.start(start, gate)
    }
    startOnThread = { (next, status) throws(FileDescriptorError) in
      var decoder = decoder
      // Set once, before the gate is handed to the reader; the cycle it makes ends when the
      // gate closes, as with `GateReference`. The reader's turns are one at a time, and the
      // gate serializes its calls besides, so the decoder's state needs no lock.
      let reference = LockedState<ObserverGate<DescriptorEvent<Decoder.Chunk>>?>(nil)
      let gate = ObserverGate<DescriptorEvent<Decoder.Chunk>>.serializing { event in
        reference.withLock { $0 }?.deliver(event, decoding: &decoder, next: next, status: status)
      }
      reference.withLock { $0 = gate }
      return try Self.start(start, gate)
    }
  }

  /// Starts a reader on `gate` with `start`; closes the gate when it cannot start.
  private static func start<Chunk>(
    _ start: @Sendable (ObserverGate<DescriptorEvent<Chunk>>) throws(FileDescriptorError) -> Reader,
    _ gate: ObserverGate<DescriptorEvent<Chunk>>
  ) throws(FileDescriptorError) -> Reader {
    do {
      return try start(gate)
    } catch {
      gate.close()
      throw error
    }
  }

  /// Subscribes `next` and `status` to run on the caller's actor, one call at a time and in
  /// order.
  ///
  /// A followed regular file's `refill` is subscribed on the same actor: each of its deliveries
  /// reads there and hands the values over in the same call.
  ///
  /// - Parameters:
  ///   - isolation: The actor the channels run on: the caller's, which the compiler passes.
  ///     Code on no actor cannot call this; it uses ``subscribe(on:next:status:)``.
  ///   - next: Called with each value, on `isolation`.
  ///   - status: Called with end of file, a truncation or a failure, on `isolation`, after the
  ///     values before it.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  @discardableResult
  public func subscribe(
    isolation: isolated any Actor = #isolation,
    next: @escaping (Value) -> Void,
    status: @escaping (DescriptorStatus) -> Void = { _ in }
  ) -> SendableSubscription {
    do throws(FileDescriptorError) {
      let reader = try startOnActor(isolation, next, status)
      return connect(reader, isolation: isolation) { file in
        // Delivered on the subscriber's actor: read there, and handed over in the same call.
        refill?.subscribe(isolation: isolation) { file.refill(isolation: isolation) }
      }
    } catch {
      // Told after the subscription has been returned, as a later failure would be.
      let report = ObserverGate<DescriptorStatus>(isolation: isolation, status)
      Task { report.send(.failed(error)) }
      return SendableSubscription { report.close() }
    }
  }

  /// Subscribes `next` and `status` to run on the thread that reads: no thread switch by the
  /// package, from any code, on an actor or not.
  ///
  /// ```swift
  /// let received = LockedState(0)
  /// let reading = try FileDescriptors.bytes(of: socket, ownership: .streamCloses)
  ///   .subscribe(
  ///     on: .sendingThread,
  ///     next: { chunk in received.withLock { $0 += chunk.count } },
  ///     status: { status in if status == .endOfFile { print("peer closed") } })
  /// ```
  ///
  /// A pipe, socket, terminal or device is read on the package's poller thread, which has just
  /// seen it ready; a regular file's first chunk on the subscribing thread, before this
  /// returns, its other chunks on the poller's thread, and a followed file's later passes on
  /// the thread that sends its `refill`, before that send returns (a send while a pass is under
  /// way elsewhere makes that pass read on to the new end, and returns at once). One call at a
  /// time, in order: the next chunk is read only once `next` has returned for every value of
  /// the last, so keep the closures short: the poller's thread is one for the whole process.
  ///
  /// - Parameters:
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each value, on the thread that read it.
  ///   - status: Called with end of file, a truncation or a failure, on the thread that found
  ///     it, after the values before it; a subscription that cannot start is told here, before
  ///     this returns.
  /// - Returns: The subscription, which any thread may end, `next` included; dropping it does
  ///   not unsubscribe.
  @discardableResult
  public func subscribe(
    on delivery: SynchronousDelivery,
    next: @escaping @Sendable (Value) -> Void,
    status: @escaping @Sendable (DescriptorStatus) -> Void = { _ in }
  ) -> SendableSubscription {
    do throws(FileDescriptorError) {
      let reader = try startOnThread(next, status)
      return connect(reader, isolation: nil) { file in
        // Read on the thread that sends the trigger, and delivered there.
        refill?.subscribe(on: .sendingThread) { file.refill(isolation: nil) }
      }
    } catch {
      status(.failed(error))
      return SendableSubscription {}
    }
  }

  /// The values alone, as a stream for the caller's actor, to apply operators to: each
  /// subscription of it subscribes this producer with ``subscribe(isolation:next:status:)``
  /// and ignores the status channel.
  ///
  /// - Parameter isolation: The actor subscriptions run on: the caller's, which the compiler
  ///   passes.
  public func stream(isolation: isolated any Actor = #isolation) -> ValueObservable<Value> {
    ValueObservable { observer in
      self.subscribe(isolation: isolation, next: observer.next).unsubscribe
    }
  }

  /// The one connect of both forms, once the reader has started on the subscriber's gate: for
  /// a regular file, subscribes its refill trigger (`refilling`) before asking for the first
  /// pass, so that a change the trigger reports from now on is read by a later pass, and the
  /// first pass reads everything written before it; then reads the first pass here, on
  /// `isolation` (inside `subscribe`).
  private func connect(
    _ reader: Reader,
    isolation: isolated (any Actor)?,
    refilling: (FilePasses) -> SendableSubscription?
  ) -> SendableSubscription {
    guard let file = reader.file else { return SendableSubscription(reader.disconnect) }
    let refills = refilling(file)
    file.refill(isolation: isolation)
    return SendableSubscription {
      // The gate closes first; a refill sent after the reader has ended reads nothing.
      reader.disconnect()
      refills?.unsubscribe()
    }
  }
}
