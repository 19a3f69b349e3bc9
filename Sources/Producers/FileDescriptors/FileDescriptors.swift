import Multicast

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Streams of a file descriptor: its readiness, the bytes read from it and the lines of text
/// read from it, each a ``DescriptorProducer`` that any code may make and subscribe on the
/// caller's actor or on the thread that reads.
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
///   subscriptions would fail. A subscription that cannot start (its duplicate cannot be made,
///   or the stream already closed its descriptor) reports ``DescriptorStatus/failed(_:)`` on its
///   status channel (``DescriptorProducer`` says when).
/// - Threading: a stream is `Sendable`, made by any code. `subscribe(next:status:)` delivers
///   values and statuses on the caller's actor, one call at a time and in order; the reading
///   happens where the descriptor's event arrives (the package's poller thread; for a regular
///   file, where its refill trigger delivers), one thread switch from the actor.
///   `subscribe(on: .sendingThread, next:status:)` runs `@Sendable` closures, from any
///   isolation, where the reading (or the wait) happens, with no thread switch by the package.
///   Once `unsubscribe()` returns, nothing more is delivered.
/// - Pipes, sockets, terminals and devices are read from the start of the subscription, and,
///   whenever they have nothing for now, again as data arrives (the package's poller says
///   when); end of file is reported once on the status channel and reading stops. A device that
///   Dispatch cannot watch is read all the same: `/dev/null` reports `.endOfFile` at once, and
///   an endless device such as `/dev/zero` or `/dev/urandom` delivers for as long as the
///   subscription lasts, as fast as the subscriber takes it, holding one chunk (and for lines
///   one unfinished line) at a time, so memory does not grow; unsubscribe to stop it.
/// - Regular files are read to their end at once; each time `refill` delivers, the reader reads,
///   where it delivers, what was appended since (from the start when the file was truncated).
///   A subscription on an actor subscribes `refill` on that actor: the read runs there and its
///   values are delivered in the same call: one turn of the actor per change. A subscription on
///   `.sendingThread` subscribes it on `.sendingThread`: the read runs on the thread that sends
///   the trigger, before its send returns, and the values are delivered there. The first pass
///   (its first chunk, and the rest of a long file in later turns) is read and delivered inside
///   `subscribe`, on the actor, or on the subscribing thread, before the subscription is
///   returned. Without `refill` a regular file is read once. A file whose size reads 0 yet has
///   content (a `/proc` or `/sys` file) has no length to compare, and is never reported
///   truncated.
/// - Fairness and backpressure: a subscription reads one chunk per turn (64 KiB, for bytes and
///   lines alike), hands its values to the subscriber, and reads the next chunk only once the
///   subscriber has received them. So a reader never reads ahead of a busy actor (it holds one
///   chunk at a time), and a stream that always has more to read (a flooded pipe, a long file,
///   `/dev/zero`) lets a timer, a signal or another stream on the same actor run after at most
///   one chunk's deliveries; the tests measure a tick's wait beside a flood, well under 100 ms.
/// - Each subscription reads on its own, so two subscriptions of one bytes or lines stream
///   share the data of a pipe between them; subscribe once and share the values downstream.
public enum FileDescriptors {
  /// A stream of the bytes read from `fd`, in chunks of at most 64 KiB as they arrive.
  ///
  /// ```swift
  /// let bytes = try FileDescriptors.bytes(of: fd, ownership: .streamCloses)
  /// bytes.subscribe(next: { chunk in print(chunk.count) })  // on the caller's actor
  /// bytes.subscribe(on: .sendingThread, next: { chunk in print(chunk.count) })  // where read
  /// ```
  ///
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the stream closes `fd` (see ``DescriptorOwnership``).
  ///   - refill: For a regular file, a trigger to read again what was appended (a file watch,
  ///     a timer): each delivery reads where it is delivered, on the subscriber's actor or, on
  ///     `.sendingThread`, on the thread that sends it. Ignored for other descriptors.
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor. A refused descriptor stays open and its owner's.
  public static func bytes(
    of fd: Int32,
    ownership: DescriptorOwnership,
    refill: Producer<Void>? = nil
  ) throws(FileDescriptorError) -> DescriptorProducer<[UInt8]> {
    try reading(fd, ownership: ownership, refill: refill) { _ in WholeChunks() }
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
  ///     file is followed like `tail -f`. Each delivery reads where it is delivered (see
  ///     ``bytes(of:ownership:refill:)``). Ignored for other descriptors.
  ///   - maximumLineLength: The longest line delivered whole, in bytes; at least 1.
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor, and ``FileDescriptorError/maximumLineLengthNotPositive(_:)`` for a
  ///   `maximumLineLength` below 1. A refused descriptor stays open and its owner's.
  public static func lines(
    of fd: Int32,
    ownership: DescriptorOwnership,
    refill: Producer<Void>? = nil,
    maximumLineLength: Int = 1 << 20
  ) throws(FileDescriptorError) -> DescriptorProducer<String> {
    guard let splitter = try? LineSplitter(maximumLineLength: maximumLineLength) else {
      throw .maximumLineLengthNotPositive(maximumLineLength)
    }
    return try reading(fd, ownership: ownership, refill: refill) { endOfFileIsFinal in
      LineDecoder(splitter: splitter, endOfFileIsFinal: endOfFileIsFinal)
    }
  }

  /// A stream that delivers each time `fd` is readable, with the number of bytes a read would
  /// return now (0 at end of file).
  ///
  /// ```swift
  /// let reading = try FileDescriptors.readable(socket, ownership: .callerCloses)
  ///   .subscribe(on: .sendingThread, next: { available in
  ///     // read(socket, ...) here, on the poller's thread
  ///   })
  /// ```
  ///
  /// You read the descriptor yourself in `next`; until you do, the stream keeps delivering. A
  /// pipe at end of file stays readable, so unsubscribe when your read returns 0. Regular files
  /// are always readable. On an actor, a repeat is sent once the subscriber has received the
  /// report before it; on `.sendingThread`, `next` runs on the package's poller thread, and the
  /// next wait begins once it has returned: keep it short and never blocking, for the poller's
  /// thread is one for the whole process.
  ///
  /// A call of `next` may use the descriptor to its end: the descriptor (the stream's, with
  /// ``DescriptorOwnership/streamCloses``, or the subscription's duplicate) is closed once the
  /// poller has let go of it and a call under way has returned. A descriptor you close yourself
  /// (``DescriptorOwnership/callerCloses``) is for you to keep open while such a call may use
  /// it: unsubscribe from inside `next`, or close it once a call under way has returned.
  ///
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the stream closes `fd` (see ``DescriptorOwnership``).
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor.
  public static func readable(
    _ fd: Int32,
    ownership: DescriptorOwnership
  ) throws(FileDescriptorError) -> DescriptorProducer<Int> {
    try readiness(
      fd, ownership: ownership, events: Int16(POLLIN), direction: O_WRONLY,
      error: .notReadable(fd))
  }

  /// A stream that delivers each time `fd` can be written without blocking, with an estimate of
  /// the room for writing: the free space of a pipe on Linux, 1 otherwise.
  ///
  /// Unsubscribe when you have nothing more to write, or the stream keeps delivering. Delivered
  /// and repeated as ``readable(_:ownership:)`` says.
  ///
  /// - Parameters:
  ///   - fd: An open descriptor that can be written.
  ///   - ownership: Whether the stream closes `fd` (see ``DescriptorOwnership``).
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   read-only descriptor.
  public static func writable(
    _ fd: Int32,
    ownership: DescriptorOwnership
  ) throws(FileDescriptorError) -> DescriptorProducer<Int> {
    try readiness(
      fd, ownership: ownership, events: Int16(POLLOUT), direction: O_RDONLY,
      error: .notWritable(fd))
  }

  /// Throws unless `fd` is open, not a directory, and not opened only in `direction`'s
  /// opposite.
  private static func validate(
    _ fd: Int32, direction wrong: Int32, error: FileDescriptorError
  ) throws(FileDescriptorError) {
    guard fd >= 0 else { throw .negative(fd) }
    guard System.isOpen(fd) else { throw .notOpen(fd) }
    guard System.accessMode(fd) != wrong else { throw error }
    if case .success(let info) = System.status(fd), System.isDirectory(info) {
      throw .isDirectory(fd)
    }
  }

  /// A reading stream of `fd`: validates `fd`, and returns the stream whose subscriptions each
  /// start a reader of their own (of the stream's descriptor, or a duplicate), which hands the
  /// bytes it reads, 64 KiB a turn at most, to the subscriber's gate, following a regular file
  /// when `refill` is given. Each subscription decodes them where it delivers, with a decoder
  /// made by `decoder`, which is told whether an end of file is final (not a followed file's).
  private static func reading<Decoder: ChunkDecoder>(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    refill: Producer<Void>?,
    decoder: (_ endOfFileIsFinal: Bool) -> Decoder
  ) throws(FileDescriptorError) -> DescriptorProducer<Decoder.Value>
  where Decoder.Chunk == [UInt8] {
    try validate(fd, direction: O_WRONLY, error: .notReadable(fd))
    let holder = DescriptorHolder(fd: fd, ownership: ownership)
    let isRegular = (try? System.status(fd).get()).map(System.isRegular) ?? false
    let chunkSize = 65_536
    return DescriptorProducer(
      decoder: decoder(!(isRegular && refill != nil)), refill: refill,
      start: { (gate) throws(FileDescriptorError) in
        let acquired = try holder.acquire().get()
        guard isRegular else {
          let reader = SourceReader(
            holder: holder, fd: acquired, chunkSize: chunkSize, observer: gate)
          return .init(disconnect: reader.disconnect, file: nil)
        }
        let reader = FilePasses(holder: holder, fd: acquired, chunkSize: chunkSize, observer: gate)
        return .init(disconnect: reader.disconnect, file: reader)
      })
  }

  /// A readiness stream of `fd`: validates `fd`, and returns the stream whose subscriptions
  /// each connect their gate to a watcher of their own, which waits for `events`.
  private static func readiness(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    events: Int16,
    direction wrong: Int32,
    error: FileDescriptorError
  ) throws(FileDescriptorError) -> DescriptorProducer<Int> {
    try validate(fd, direction: wrong, error: error)
    let holder = DescriptorHolder(fd: fd, ownership: ownership)
    return DescriptorProducer(
      decoder: WholeChunks<Int>(), refill: nil,
      start: { (gate) throws(FileDescriptorError) in
        let acquired = try holder.acquire().get()
        let watcher = ReadinessWatcher(
          holder: holder, fd: acquired, events: events, observer: gate)
        return .init(disconnect: watcher.disconnect, file: nil)
      })
  }
}
