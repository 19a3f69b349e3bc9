import Dispatch
import IndefiniteObservable
import Multicast

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Streams of a file descriptor: its readiness, the bytes read from it and the lines of text
/// read from it.
///
/// ```swift
/// let lines = try FileDescriptors.lines(of: pipeReadEnd, ownership: .streamCloses)
/// let subscription = lines.subscribe(
///   next: { line in print(line) },
///   status: { status in if status == .endOfFile { print("writer closed the pipe") } })
/// ```
///
/// - Validation: the descriptor is checked when the stream is made. -1 (or any negative
///   number), a descriptor that is not open (never opened, or closed), a directory, and a
///   descriptor opened in the wrong direction are a thrown ``FileDescriptorError``, because
///   Dispatch crashes on -1 and goes silent on the others.
/// - Ownership: ``DescriptorOwnership/streamCloses`` hands the descriptor to the stream, which
///   closes it once its last active subscription has unsubscribed, or when the stream is
///   released without ever being subscribed; its first subscription reads that descriptor
///   itself, so a followed file costs one descriptor. ``DescriptorOwnership/callerCloses``
///   leaves it open: each subscription then reads a close-on-exec duplicate of its own, which
///   the stream closes once it has stopped waiting on it, so closing your descriptor after
///   `unsubscribe()` returns is always safe. Do not close it while subscribed: new
///   subscriptions would fail.
/// - Threading: a stream is made on an actor (the main actor in top-level code and in
///   `@MainActor` types), and values and statuses are delivered on that actor, one call at a
///   time and in order; the reading happens where the descriptor's event arrives (the package's
///   poller thread; for a regular file, where its refill trigger delivers), one thread switch
///   from the actor. Code that is not isolated to an actor cannot make a stream. Subscribe and
///   unsubscribe on the actor that made the stream (the stream is not `Sendable`); once
///   `unsubscribe()` returns, nothing more is delivered.
/// - On the reading thread: ``bytes(of:ownership:on:next:status:)``,
///   ``lines(of:ownership:maximumLineLength:on:next:status:)``, ``readable(_:ownership:on:_:)``
///   and ``writable(_:ownership:on:_:)`` with `.sendingThread` subscribe `@Sendable` closures,
///   from any isolation, that run where the reading (or the wait) happens, with no thread
///   switch by the package.
/// - Pipes, sockets, terminals and devices are read from the start of the subscription, and,
///   whenever they have nothing for now, again as data arrives (the package's poller says
///   when); end of file is reported once on the status channel and reading stops. A device that
///   Dispatch cannot watch is read all the same: `/dev/null` reports `.endOfFile` at once, and
///   an endless device such as `/dev/zero` or `/dev/urandom` delivers for as long as the
///   subscription lasts, as fast as the subscriber takes it, holding one chunk (and for lines
///   one unfinished line) at a time, so memory does not grow; unsubscribe to stop it.
/// - Regular files are read to their end at once; each time `refill` delivers, the reader reads,
///   on the thread it delivers on, what was appended since (from the start when the file was
///   truncated). A `refill` stream made on the stream's actor delivers there, so the read runs
///   on the actor and its values are delivered in the same call, before the trigger's `send`
///   returns: one turn of the actor per change. The first pass (its first chunk, and the rest
///   of a long file in later turns) is read and delivered inside `subscribe`, on the actor, before
///   the subscription is returned; on `.sendingThread`, on the subscribing thread. Without
///   `refill` a regular file is read once. A file
///   whose size reads 0 yet has content (a `/proc` or `/sys` file) has no length to compare,
///   and is never reported truncated.
/// - Fairness and backpressure: a subscription reads one chunk per turn (64 KiB, for bytes and
///   lines alike), hands its values to the actor, and reads the next chunk only once the
///   subscriber has received them. So a reader never reads ahead of a busy actor (it holds one
///   chunk at a time), and a stream that always has more to read (a flooded pipe, a long file,
///   `/dev/zero`) lets a timer, a signal or another stream on the same actor run after at most
///   one chunk's deliveries; the tests measure a tick's wait beside a flood, well under 100 ms.
/// - Each subscription reads on its own, so two subscriptions of one bytes or lines stream
///   share the data of a pipe between them; subscribe once and share the values downstream.
public enum FileDescriptors {
  /// A stream of the bytes read from `fd`, in chunks of at most 64 KiB as they arrive.
  ///
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the stream closes `fd` (see ``DescriptorOwnership``).
  ///   - refill: For a regular file, a trigger to read again what was appended (a file watch,
  ///     a timer), made on the same actor: each delivery reads there and hands the values over
  ///     in the same call. Ignored for other descriptors.
  ///   - isolation: The actor that values and statuses are delivered on: the caller's, which
  ///     the compiler passes.
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor.
  public static func bytes(
    of fd: Int32,
    ownership: DescriptorOwnership,
    refill: ValueObservable<Void>? = nil,
    isolation: isolated any Actor = #isolation
  ) throws(FileDescriptorError) -> DescriptorObservable<[UInt8]> {
    try reading(
      fd, ownership: ownership, refill: refill.map(Refill.onActor) ?? .none, chunkSize: 65_536,
      isolation: isolation
    ) { ByteChunks() }
  }

  /// A stream of the bytes read from `fd`, a followed regular file read on the thread that
  /// sends `refillInline`: the way to follow a file with one thread switch per change.
  ///
  /// Each `refillInline.send()`, from any thread, reads what was appended to the file there,
  /// before `send` returns (about one chunk; a longer rest is read in later turns), and hands
  /// it to the stream's actor: so a change learnt on a system thread (a Dispatch source's
  /// handler, a C library's callback) reaches the subscriber in one thread switch, with no
  /// doorbell stream and no queue between. A ``FileWatch`` stream delivers on its actor: sent
  /// from its subscriber, the read runs on that actor. The values are delivered inside `send`
  /// when it is called on the stream's actor (the main thread, for the main actor), and in a
  /// turn of that actor when it is called on another thread. A send while a read of this
  /// subscription is under way elsewhere makes that read go on to the new end instead, and
  /// returns at once. After `unsubscribe()` returns, a send reads nothing.
  /// Other descriptors ignore `refillInline` and are read as with
  /// ``bytes(of:ownership:refill:isolation:)``.
  ///
  /// ```swift
  /// let refills = SendableEmitter<Void>()
  /// let bytes = try FileDescriptors.bytes(
  ///   of: fd, ownership: .streamCloses, refillInline: refills)
  /// // Where a change is learnt on a thread of the system, such as a Dispatch source's handler:
  /// changes.setEventHandler { refills.send() }  // reads here, on the handler's thread
  /// ```
  ///
  /// - Throws: As ``bytes(of:ownership:refill:isolation:)``.
  public static func bytes(
    of fd: Int32,
    ownership: DescriptorOwnership,
    refillInline: SendableEmitter<Void>,
    isolation: isolated any Actor = #isolation
  ) throws(FileDescriptorError) -> DescriptorObservable<[UInt8]> {
    try reading(
      fd, ownership: ownership, refill: .onSendingThread(refillInline), chunkSize: 65_536,
      isolation: isolation
    ) { ByteChunks() }
  }

  /// A stream of the lines of text read from `fd`.
  ///
  /// Lines end at LF; a CR before the LF is dropped, so CRLF text reads the same. A line whose
  /// end has not arrived yet waits for it. At a final end of file (a pipe's writer closed, or a
  /// regular file read without `refill`) the unfinished last line is delivered as it is; a
  /// followed regular file keeps it until its end arrives. A line longer than
  /// `maximumLineLength` bytes is delivered in pieces of at most that length, cut only between
  /// characters, so binary data cannot grow memory without bound. Bytes that are not UTF-8
  /// become U+FFFD. ``LineSplitter`` does the splitting and states the rules in full.
  ///
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the stream closes `fd` (see ``DescriptorOwnership``).
  ///   - refill: For a regular file, a trigger to read again what was appended; with it, the
  ///     file is followed like `tail -f`. Made on the same actor, each delivery reads there and
  ///     hands the lines over in the same call. Ignored for other descriptors.
  ///   - maximumLineLength: The longest line delivered whole, in bytes; at least 1.
  ///   - isolation: The actor that values and statuses are delivered on: the caller's, which
  ///     the compiler passes.
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor, and ``FileDescriptorError/maximumLineLengthNotPositive(_:)`` for a
  ///   `maximumLineLength` below 1. A refused descriptor stays open and its owner's.
  public static func lines(
    of fd: Int32,
    ownership: DescriptorOwnership,
    refill: ValueObservable<Void>? = nil,
    maximumLineLength: Int = 1 << 20,
    isolation: isolated any Actor = #isolation
  ) throws(FileDescriptorError) -> DescriptorObservable<String> {
    let splitter = try lineSplitter(maximumLineLength)
    return try reading(
      fd, ownership: ownership, refill: refill.map(Refill.onActor) ?? .none, chunkSize: 65_536,
      isolation: isolation
    ) { LineDecoder(splitter: splitter) }
  }

  /// A stream of the lines of text read from `fd`, a followed regular file read on the thread
  /// that sends `refillInline` (see ``bytes(of:ownership:refillInline:isolation:)``, which says
  /// how, and ``lines(of:ownership:refill:maximumLineLength:isolation:)`` for the lines).
  ///
  /// - Throws: As ``lines(of:ownership:refill:maximumLineLength:isolation:)``.
  public static func lines(
    of fd: Int32,
    ownership: DescriptorOwnership,
    refillInline: SendableEmitter<Void>,
    maximumLineLength: Int = 1 << 20,
    isolation: isolated any Actor = #isolation
  ) throws(FileDescriptorError) -> DescriptorObservable<String> {
    let splitter = try lineSplitter(maximumLineLength)
    return try reading(
      fd, ownership: ownership, refill: .onSendingThread(refillInline), chunkSize: 65_536,
      isolation: isolation
    ) { LineDecoder(splitter: splitter) }
  }

  /// The splitter of every `lines` form: `maximumLineLength` below 1 is the caller's error.
  private static func lineSplitter(
    _ maximumLineLength: Int
  ) throws(FileDescriptorError) -> LineSplitter {
    do {
      return try LineSplitter(maximumLineLength: maximumLineLength)
    } catch {
      throw .maximumLineLengthNotPositive(maximumLineLength)
    }
  }

  /// Subscribes `next` and `status` to the bytes read from `fd`, in chunks of at most 64 KiB,
  /// to run on the thread that reads them: no thread switch by the package.
  ///
  /// ```swift
  /// let received = LockedState(0)
  /// let reading = try FileDescriptors.bytes(
  ///   of: socket, ownership: .streamCloses, on: .sendingThread,
  ///   next: { chunk in received.withLock { $0 += chunk.count } },
  ///   status: { status in if status == .endOfFile { print("peer closed") } })
  /// ```
  ///
  /// The spelling and the contract of `subscribe(on: .sendingThread)` on a `SendableEmitter`,
  /// for code with no actor to run on (a server, a command-line tool):
  ///
  /// - Threading: callable from any isolation. `next` and `status` are `@Sendable` and run where
  ///   the reading happens: a pipe, socket, terminal or device on the package's poller thread,
  ///   which has just seen it readable; a regular file (read once, to its end) on the
  ///   subscribing thread, before this returns, for its first chunk and on the poller's thread
  ///   for the others. One call at a time, in order: the next chunk is read only once `next`
  ///   has returned for every value of the last, so keep them short: the poller's thread is
  ///   one for the whole process, and while they run, no other descriptor stream, file watch
  ///   (on Linux) or signal stream of the process is served.
  /// - Lifetime, ownership and what is read: as for the stream
  ///   (``bytes(of:ownership:refill:isolation:)``), for this one subscription: `unsubscribe()`,
  ///   from any thread, `next` included, ends the reading; no call begins after it returns
  ///   (one under way on another thread may finish), and the descriptor (the stream's, with
  ///   ``DescriptorOwnership/streamCloses``, or the subscription's duplicate) is closed once
  ///   the poller has let go of it. Dropping the subscription does not unsubscribe.
  /// - A followed regular file (`refill`, `refillInline`) is not offered here.
  ///
  /// - Throws: As ``bytes(of:ownership:refill:isolation:)``, and
  ///   ``FileDescriptorError/duplicateFailed(_:_:)`` when the duplicate of a descriptor that
  ///   ``DescriptorOwnership/callerCloses`` cannot be made; nothing is read then.
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the subscription closes `fd` (see ``DescriptorOwnership``).
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each chunk, on the thread that read it.
  ///   - status: Called with end of file or a failure, on the thread that found it, after the
  ///     values before it.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func bytes(
    of fd: Int32,
    ownership: DescriptorOwnership,
    on delivery: SynchronousDelivery,
    next: @escaping @Sendable ([UInt8]) -> Void,
    status: @escaping @Sendable (DescriptorStatus) -> Void = { _ in }
  ) throws(FileDescriptorError) -> SendableSubscription {
    try subscription(
      DescriptorEvent.gate(next: next, status: status),
      firstPass(try reader(fd, ownership: ownership, chunkSize: 65_536) { ByteChunks() }))
  }

  /// Subscribes `next` and `status` to the lines of text read from `fd`, to run on the thread
  /// that reads them (see ``bytes(of:ownership:on:next:status:)`` for the threading and the
  /// lifetime, and ``lines(of:ownership:refill:maximumLineLength:isolation:)`` for the lines).
  ///
  /// - Throws: As ``lines(of:ownership:refill:maximumLineLength:isolation:)`` and
  ///   ``bytes(of:ownership:on:next:status:)``.
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the subscription closes `fd` (see ``DescriptorOwnership``).
  ///   - maximumLineLength: The longest line delivered whole, in bytes; at least 1.
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with each line, on the thread that read it.
  ///   - status: Called with end of file or a failure, on the thread that found it, after the
  ///     lines before it.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func lines(
    of fd: Int32,
    ownership: DescriptorOwnership,
    maximumLineLength: Int = 1 << 20,
    on delivery: SynchronousDelivery,
    next: @escaping @Sendable (String) -> Void,
    status: @escaping @Sendable (DescriptorStatus) -> Void = { _ in }
  ) throws(FileDescriptorError) -> SendableSubscription {
    let splitter = try lineSplitter(maximumLineLength)
    return try subscription(
      DescriptorEvent.gate(next: next, status: status),
      firstPass(
        try reader(fd, ownership: ownership, chunkSize: 65_536) {
          LineDecoder(splitter: splitter)
        }))
  }

  /// A stream that delivers each time `fd` is readable, with the number of bytes a read would
  /// return now (0 at end of file).
  ///
  /// You read the descriptor yourself in `next`; until you do, the stream keeps delivering. A
  /// pipe at end of file stays readable, so unsubscribe when your read returns 0. Regular files
  /// are always readable. Delivered on the caller's actor (`isolation`); a repeat is sent once
  /// the subscriber has received the report before it.
  ///
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor.
  public static func readable(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    isolation: isolated any Actor = #isolation
  ) throws(FileDescriptorError) -> DescriptorObservable<Int> {
    let connect = try readiness(
      fd, ownership: ownership, events: Int16(POLLIN), direction: O_WRONLY,
      error: .notReadable(fd))
    return stream(isolation: isolation, connect)
  }

  /// A stream that delivers each time `fd` can be written without blocking, with an estimate of
  /// the room for writing: the free space of a pipe on Linux, 1 otherwise.
  ///
  /// Unsubscribe when you have nothing more to write, or the stream keeps delivering. Delivered
  /// on the caller's actor (`isolation`); a repeat is sent once the subscriber has received the
  /// report before it.
  ///
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   read-only descriptor.
  public static func writable(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    isolation: isolated any Actor = #isolation
  ) throws(FileDescriptorError) -> DescriptorObservable<Int> {
    let connect = try readiness(
      fd, ownership: ownership, events: Int16(POLLOUT), direction: O_RDONLY,
      error: .notWritable(fd))
    return stream(isolation: isolation, connect)
  }

  /// Subscribes `next` to the readiness of `fd` for reading, to run on the poller's thread that
  /// saw it: each time `fd` is readable, with the number of bytes a read would return now (0 at
  /// end of file). No thread switch by the package.
  ///
  /// ```swift
  /// let reading = try FileDescriptors.readable(
  ///   socket, ownership: .callerCloses, on: .sendingThread
  /// ) { available in
  ///   // read(socket, ...) here, on the poller's thread
  /// }
  /// ```
  ///
  /// You read the descriptor yourself in `next`; until you do, `next` is called again, as soon
  /// as it returns. A pipe at end of file stays readable, so unsubscribe when your read returns
  /// 0. Regular files are always readable.
  ///
  /// - Threading: callable from any isolation. `next` is `@Sendable` and runs on the package's
  ///   poller thread, one call at a time; the next wait begins once it has returned. Keep it
  ///   short and never blocking: the poller's thread is one for the whole process, and while
  ///   `next` runs, no other descriptor stream, file watch (on Linux) or signal stream of the
  ///   process is served.
  /// - Lifetime and ownership: as for the stream (``readable(_:ownership:isolation:)``), for this
  ///   one subscription: `unsubscribe()`, from any thread, `next` included, ends the wait; no
  ///   call begins after it returns (one under way on another thread may finish), and the
  ///   descriptor (the stream's, with ``DescriptorOwnership/streamCloses``, or the
  ///   subscription's duplicate) is closed once the poller has let go of it and a call of
  ///   `next` under way has returned: `next` may use it to the end of its call. A descriptor
  ///   you close yourself (``DescriptorOwnership/callerCloses``) is for you to keep open while
  ///   such a call may use it: unsubscribe from inside `next`, or close it once a call under
  ///   way has returned. Dropping the subscription does not unsubscribe.
  ///
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor, and ``FileDescriptorError/duplicateFailed(_:_:)`` when the
  ///   duplicate of a descriptor that ``DescriptorOwnership/callerCloses`` cannot be made;
  ///   nothing is watched then.
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the subscription closes `fd` (see ``DescriptorOwnership``).
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with the bytes a read would return, on the poller's thread.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func readable(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Int) -> Void
  ) throws(FileDescriptorError) -> SendableSubscription {
    try subscription(
      DescriptorEvent.gate(next: next, status: { _ in }),
      try readiness(
        fd, ownership: ownership, events: Int16(POLLIN), direction: O_WRONLY,
        error: .notReadable(fd)))
  }

  /// Subscribes `next` to the readiness of `fd` for writing, to run on the poller's thread that
  /// saw it: each time `fd` can be written without blocking, with an estimate of the room for
  /// writing (the free space of a pipe on Linux, 1 otherwise). No thread switch by the package.
  ///
  /// Unsubscribe when you have nothing more to write, or `next` keeps being called. See
  /// ``readable(_:ownership:on:_:)`` for the threading and the lifetime.
  ///
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   read-only descriptor, and ``FileDescriptorError/duplicateFailed(_:_:)`` when the
  ///   duplicate of a descriptor that ``DescriptorOwnership/callerCloses`` cannot be made;
  ///   nothing is watched then.
  /// - Parameters:
  ///   - fd: An open descriptor that can be written.
  ///   - ownership: Whether the subscription closes `fd` (see ``DescriptorOwnership``).
  ///   - delivery: `.sendingThread`.
  ///   - next: Called with the room for writing, on the poller's thread.
  /// - Returns: The subscription, which any thread may end; dropping it does not unsubscribe.
  public static func writable(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    on delivery: SynchronousDelivery,
    _ next: @escaping @Sendable (Int) -> Void
  ) throws(FileDescriptorError) -> SendableSubscription {
    try subscription(
      DescriptorEvent.gate(next: next, status: { _ in }),
      try readiness(
        fd, ownership: ownership, events: Int16(POLLOUT), direction: O_RDONLY,
        error: .notWritable(fd)))
  }

  /// Throws unless `fd` is open, not a directory, and not opened only in `direction`'s
  /// opposite.
  private static func validate(
    _ fd: Int32, direction wrong: Int32, error: FileDescriptorError, allowDirectory: Bool
  ) throws(FileDescriptorError) {
    guard fd >= 0 else { throw .negative(fd) }
    guard System.isOpen(fd) else { throw .notOpen(fd) }
    guard System.accessMode(fd) != wrong else { throw error }
    if !allowDirectory, case .success(let info) = System.status(fd), System.isDirectory(info) {
      throw .isDirectory(fd)
    }
  }

  /// The actor form of every descriptor stream: each subscription connects a gate to its
  /// observer's two channels, bound to `isolation`; a subscription that cannot start (its
  /// descriptor cannot be duplicated, or the stream closed it) is told on its status channel.
  ///
  /// `connect` runs on `isolation` and its disconnect runs there too (the stream's
  /// subscriptions are not `Sendable`), so it may hold a subscription of that actor.
  private static func stream<Value: Sendable>(
    isolation: isolated any Actor,
    _ connect:
      @escaping (ObserverGate<DescriptorEvent<Value>>) throws(FileDescriptorError) -> Disconnect
  ) -> DescriptorObservable<Value> {
    DescriptorObservable { observer in
      let gate = DescriptorEvent.gate(to: observer, isolation: isolation)
      let release: Disconnect
      do throws(FileDescriptorError) {
        release = try connect(gate)
      } catch {
        gate.close()
        return report(error, to: observer, isolation: isolation)
      }
      return {
        gate.close()
        release()
      }
    }
  }

  /// An actor-bound reading stream of `fd`.
  private static func reading<Decoder: ChunkDecoder>(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    refill: Refill,
    chunkSize: Int,
    isolation: isolated any Actor,
    decoder: @escaping () -> Decoder
  ) throws(FileDescriptorError) -> DescriptorObservable<Decoder.Value> {
    let start = try reader(fd, ownership: ownership, chunkSize: chunkSize, decoder: decoder)
    return stream(isolation: isolation) { (gate) throws(FileDescriptorError) in
      let started = try start(gate, refill.isFollowing)
      guard let file = started.file else { return started.disconnect }
      // Subscribed before the first pass is asked for: a change the trigger reports from now
      // on is read by a later pass, and the first pass reads everything written before it.
      let refilling: Subscription?
      switch refill {
      case .none: refilling = nil
      // Delivered on the subscriber's actor: read there, and handed over in the same call.
      case .onActor(let stream):
        refilling = stream.subscribe { file.refill(isolation: isolation) }
      case .onSendingThread(let emitter):
        refilling = Subscription(
          emitter.subscribe(on: .sendingThread, replayingLast: false) { file.refill() })
      }
      // The first pass is read and handed over here, on the stream's actor: inside `subscribe`.
      file.refill(isolation: isolation)
      return {
        refilling?.unsubscribe()
        started.disconnect()
      }
    }
  }

  /// The core of every `.sendingThread` reading form, which has no refill: starts the reader
  /// and asks for its first pass, delivered inside `subscribe`, on the subscribing thread.
  private static func firstPass<Decoder: ChunkDecoder>(
    _ start: @escaping Start<Decoder>
  ) -> Connect<DescriptorEvent<Decoder.Value>> {
    { (gate) throws(FileDescriptorError) in
      let started = try start(gate, false)
      started.file?.refill(isolation: nil)
      return started.disconnect
    }
  }

  /// The core of every reading form: validates `fd`, and returns what starts one subscriber's
  /// reader (of the stream's descriptor, or a duplicate), handing what it reads to the gate,
  /// following a regular file when told so.
  private static func reader<Decoder: ChunkDecoder>(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    chunkSize: Int,
    decoder: @escaping () -> Decoder
  ) throws(FileDescriptorError) -> Start<Decoder> {
    try validate(fd, direction: O_WRONLY, error: .notReadable(fd), allowDirectory: false)
    let holder = DescriptorHolder(fd: fd, ownership: ownership)
    let isRegular = (try? System.status(fd).get()).map(System.isRegular) ?? false
    return { (gate, following) throws(FileDescriptorError) in
      let acquired = try holder.acquire().get()
      guard isRegular else {
        let reader = SourceReader(
          holder: holder, fd: acquired, decoder: decoder(), chunkSize: chunkSize, observer: gate)
        return Started(disconnect: reader.disconnect, file: nil)
      }
      let reader = FilePasses(
        holder: holder, fd: acquired, decoder: decoder(), chunkSize: chunkSize, observer: gate,
        following: following)
      return Started(disconnect: reader.disconnect, file: reader)
    }
  }

  /// What connects one subscriber's gate to a descriptor, or says why it cannot.
  /// Connects `gate` and returns the subscription that closes it, then lets go of what
  /// `connect` started; when `connect` throws, closes the gate and throws. The gate is made
  /// only once `connect` exists: a factory that throws first (a bad descriptor) makes none, for
  /// a gate that is never closed keeps its closure, and a descriptor event's gate refers to
  /// itself through it.
  private static func subscription<Event: Sendable>(
    _ makeGate: @autoclosure () -> ObserverGate<Event>, _ connect: Connect<Event>
  ) throws(FileDescriptorError) -> SendableSubscription {
    let gate = makeGate()
    let release: @Sendable () -> Void
    do {
      release = try connect(gate)
    } catch {
      gate.close()
      throw error
    }
    return SendableSubscription {
      gate.close()
      release()
    }
  }

  private typealias Connect<Event: Sendable> =
    (ObserverGate<Event>) throws(FileDescriptorError) -> @Sendable () -> Void

  /// What starts one subscriber's reader, following a regular file when told so, or says why
  /// it cannot.
  private typealias Start<Decoder: ChunkDecoder> =
    (ObserverGate<DescriptorEvent<Decoder.Value>>, _ following: Bool) throws(FileDescriptorError)
    -> Started<Decoder>

  /// A reader started for one subscription: what lets it go, and, for a regular file, the
  /// reader to ask for passes (its first pass not yet asked for).
  private struct Started<Decoder: ChunkDecoder> {
    let disconnect: @Sendable () -> Void
    let file: FilePasses<Decoder>?
  }

  /// What makes a regular file's reader read again.
  private enum Refill {
    case none
    // A stream delivered on the subscriber's actor, where the reads run.
    case onActor(ValueObservable<Void>)
    // Read on the thread that sends.
    case onSendingThread(SendableEmitter<Void>)

    var isFollowing: Bool {
      if case .none = self { return false }
      return true
    }
  }

  /// The core of the readiness forms: validates `fd`, and returns what connects one
  /// subscriber's gate to a watcher of its own, which waits for `events`.
  private static func readiness(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    events: Int16,
    direction wrong: Int32,
    error: FileDescriptorError
  ) throws(FileDescriptorError) -> Connect<DescriptorEvent<Int>> {
    try validate(fd, direction: wrong, error: error, allowDirectory: false)
    let holder = DescriptorHolder(fd: fd, ownership: ownership)
    return { (gate) throws(FileDescriptorError) in
      let acquired = try holder.acquire().get()
      return ReadinessWatcher(holder: holder, fd: acquired, events: events, observer: gate)
        .disconnect
    }
  }

  /// Reports a subscription that could not start on its status channel, on the subscriber's
  /// actor, after the subscription has been returned.
  private static func report<Value>(
    _ failure: FileDescriptorError,
    to observer: DescriptorObserver<Value>,
    isolation: isolated any Actor
  ) -> Disconnect {
    let gate = ObserverGate<DescriptorStatus>(isolation: isolation, observer.status)
    Task { gate.send(.failed(failure)) }
    return { gate.close() }
  }
}
