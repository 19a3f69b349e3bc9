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
  /// Starts one subscriber's reader, handing what it reads to the gate.
  let start: @Sendable (ObserverGate<DescriptorEvent<Value>>) throws(FileDescriptorError) -> Started
  /// For a regular file, what makes it read again; nil: read once.
  let refill: Producer<Void>?

  /// A reader started for one subscription: what lets it go, and, for a regular file, the
  /// reader to ask for passes (its first pass not yet asked for).
  struct Started: Sendable {
    let disconnect: @Sendable () -> Void
    let file: FileRefill?
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
  @discardableResult @inlinable
  public func subscribe(
    isolation: isolated any Actor = #isolation,
    next: @escaping (Value) -> Void,
    status: @escaping (DescriptorStatus) -> Void = { _ in }
  ) -> SendableSubscription {
    // The gate is made here, where the caller's compiler knows `Value`: each value's delivery
    // runs specialized (made in this module, for any `Value`, it ran generic code a line).
    subscribe(
      DescriptorEvent.gate(next: next, status: status, isolation: isolation), status: status,
      isolation: isolation)
  }

  /// The actor form's connect, with the subscriber's gate made.
  @usableFromInline
  func subscribe(
    _ gate: ObserverGate<DescriptorEvent<Value>>, status: @escaping (DescriptorStatus) -> Void,
    isolation: isolated any Actor
  ) -> SendableSubscription {
    do throws(FileDescriptorError) {
      return try connect(gate, isolation: isolation) { file in
        // Delivered on the subscriber's actor: read there, and handed over in the same call.
        refill?.subscribe(isolation: isolation) { file.refill(isolation: isolation) }
      }
    } catch {
      gate.close()
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
  @discardableResult @inlinable
  public func subscribe(
    on delivery: SynchronousDelivery,
    next: @escaping @Sendable (Value) -> Void,
    status: @escaping @Sendable (DescriptorStatus) -> Void = { _ in }
  ) -> SendableSubscription {
    // Made here, specialized, as in the actor form.
    subscribe(DescriptorEvent.gate(next: next, status: status), status: status)
  }

  /// The `.sendingThread` form's connect, with the subscriber's gate made.
  @usableFromInline
  func subscribe(
    _ gate: ObserverGate<DescriptorEvent<Value>>,
    status: @escaping @Sendable (DescriptorStatus) -> Void
  ) -> SendableSubscription {
    do throws(FileDescriptorError) {
      return try connect(gate, isolation: nil) { file in
        // Read on the thread that sends the trigger, and delivered there.
        refill?.subscribe(on: .sendingThread) { file.refill(isolation: nil) }
      }
    } catch {
      gate.close()
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
  @inlinable
  public func stream(isolation: isolated any Actor = #isolation) -> ValueObservable<Value> {
    ValueObservable { observer in
      self.subscribe(isolation: isolation, next: observer.next).unsubscribe
    }
  }

  /// The one connect of both forms: starts the reader on `gate`; for a regular file, subscribes
  /// its refill trigger (`refilling`) before asking for the first pass, so that a change the
  /// trigger reports from now on is read by a later pass, and the first pass reads everything
  /// written before it; then reads the first pass here, on `isolation` (inside `subscribe`).
  private func connect(
    _ gate: ObserverGate<DescriptorEvent<Value>>,
    isolation: isolated (any Actor)?,
    refilling: (FileRefill) -> SendableSubscription?
  ) throws(FileDescriptorError) -> SendableSubscription {
    let started = try start(gate)
    guard let file = started.file else {
      return SendableSubscription {
        gate.close()
        started.disconnect()
      }
    }
    let refills = refilling(file)
    file.refill(isolation: isolation)
    return SendableSubscription {
      gate.close()
      refills?.unsubscribe()
      started.disconnect()
    }
  }
}

/// A regular file's reader, as the stream asks it for passes: a closure made where the reader's
/// type is known (``FileDescriptors``' factories), so that each pass runs specialized for its
/// decoder. Through a protocol, a generic reader's witness ran unspecialized: a look-up of
/// generic metadata for every line (the lines benchmark went from 94 to 137 ns a line).
struct FileRefill: Sendable {
  let read: @Sendable (isolated (any Actor)?) -> Void

  /// Reads what was appended, on the calling thread (see ``FilePasses/refill(isolation:)``).
  func refill(isolation: isolated (any Actor)?) {
    read(isolation)
  }
}
