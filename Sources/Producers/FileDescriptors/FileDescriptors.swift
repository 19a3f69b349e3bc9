import Dispatch
import IndefiniteObservable

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
///   closes it when its last active subscription unsubscribes, or when the stream is released
///   without ever being subscribed; ``DescriptorOwnership/callerCloses`` leaves it open. Each
///   subscription reads a close-on-exec duplicate of its own, which the stream closes once
///   Dispatch has let go of it, so closing your descriptor after `unsubscribe()` returns is
///   always safe. Do not close it while subscribed: new subscriptions would fail.
/// - Threading: values and statuses are delivered on a private serial queue per subscription,
///   which targets `queue` when you give one (so delivery is serial even on a concurrent
///   queue). Subscribe and unsubscribe from any thread. When `unsubscribe()` is called on the
///   delivery queue, nothing is delivered after it returns; from another thread, a delivery
///   already running may finish.
/// - Pipes, sockets, terminals and devices are read from the start of the subscription, and,
///   whenever they have nothing for now, again as data arrives (a Dispatch read source says
///   when); end of file is reported once on the status channel and reading stops. A device that
///   Dispatch cannot watch is read all the same: `/dev/null` reports `.endOfFile` at once, and
///   an endless device such as `/dev/zero` or `/dev/urandom` delivers for as long as the
///   subscription lasts, as fast as the subscriber takes it, holding one chunk (and for lines
///   one unfinished line) at a time, so memory does not grow; unsubscribe to stop it.
/// - Regular files are read to their end at once; each time `refill` delivers, the reader reads
///   what was appended since (from the start when the file was truncated); without `refill` a
///   regular file is read once. A file whose size reads 0 yet has content (a `/proc` or `/sys`
///   file) has no length to compare, and is never reported truncated.
/// - Fairness: a subscription reads one chunk per turn (64 KiB for bytes, 4 KiB for lines), and
///   when there is more, its next turn waits behind the work already waiting on `queue`. So a
///   stream that always has more to read (a flooded pipe, a long file, `/dev/zero`) lets a
///   timer, a signal or another stream on the same `queue` run after at most one chunk's
///   deliveries; the tests measure a tick's wait beside a flood, well under 100 ms. Work on a
///   queue that `queue` itself targets is not covered: hand every stream the same `queue`.
///   Without `queue`, each subscription's private queue runs on Dispatch's shared threads,
///   beside the other streams rather than taking turns with them.
/// - Each subscription reads on its own, so two subscriptions of one bytes or lines stream
///   share the data of a pipe between them; subscribe once and share the values downstream.
public enum FileDescriptors {
  /// A stream of the bytes read from `fd`, in chunks of at most 64 KiB as they arrive.
  ///
  /// - Parameters:
  ///   - fd: An open descriptor that can be read.
  ///   - ownership: Whether the stream closes `fd` (see ``DescriptorOwnership``).
  ///   - queue: Where delivery happens; a private serial queue per subscription, targeting
  ///     `queue` when given.
  ///   - refill: For a regular file, a trigger to read again what was appended (a file watch,
  ///     a timer); ignored for other descriptors.
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor.
  public static func bytes(
    of fd: Int32,
    ownership: DescriptorOwnership,
    on queue: DispatchQueue? = nil,
    refill: ValueObservable<Void>? = nil
  ) throws(FileDescriptorError) -> DescriptorObservable<[UInt8]> {
    try reading(fd, ownership: ownership, queue: queue, refill: refill, chunkSize: 65_536) {
      ByteChunks()
    }
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
  ///   - queue: Where delivery happens; a private serial queue per subscription, targeting
  ///     `queue` when given.
  ///   - refill: For a regular file, a trigger to read again what was appended; with it, the
  ///     file is followed like `tail -f`. Ignored for other descriptors.
  ///   - maximumLineLength: The longest line delivered whole, in bytes; at least 1.
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor.
  public static func lines(
    of fd: Int32,
    ownership: DescriptorOwnership,
    on queue: DispatchQueue? = nil,
    refill: ValueObservable<Void>? = nil,
    maximumLineLength: Int = 1 << 20
  ) throws(FileDescriptorError) -> DescriptorObservable<String> {
    let length = max(1, maximumLineLength)
    return try reading(fd, ownership: ownership, queue: queue, refill: refill, chunkSize: 4_096) {
      LineDecoder(maximumLength: length)
    }
  }

  /// A stream that delivers each time `fd` is readable, with Dispatch's estimate of the bytes
  /// available (0 at end of file).
  ///
  /// You read the descriptor yourself in `next`; until you do, the stream keeps delivering. A
  /// pipe at end of file stays readable, so unsubscribe when your read returns 0. Regular files
  /// are always readable.
  ///
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   write-only descriptor.
  public static func readable(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    on queue: DispatchQueue? = nil
  ) throws(FileDescriptorError) -> DescriptorObservable<Int> {
    try validate(fd, direction: O_WRONLY, error: .notReadable(fd), allowDirectory: false)
    return readiness(fd, ownership: ownership, queue: queue, events: Int16(POLLIN)) { fd, queue in
      DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    }
  }

  /// A stream that delivers each time `fd` can be written without blocking, with Dispatch's
  /// estimate of the buffer space available.
  ///
  /// Unsubscribe when you have nothing more to write, or the stream keeps delivering.
  ///
  /// - Throws: ``FileDescriptorError`` for a negative, closed, never-opened, directory or
  ///   read-only descriptor.
  public static func writable(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    on queue: DispatchQueue? = nil
  ) throws(FileDescriptorError) -> DescriptorObservable<Int> {
    try validate(fd, direction: O_RDONLY, error: .notWritable(fd), allowDirectory: false)
    return readiness(fd, ownership: ownership, queue: queue, events: Int16(POLLOUT)) {
      fd, queue in
      DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
    }
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

  private static func reading<Decoder: ChunkDecoder>(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    queue: DispatchQueue?,
    refill: ValueObservable<Void>?,
    chunkSize: Int,
    decoder: @escaping () -> Decoder
  ) throws(FileDescriptorError) -> DescriptorObservable<Decoder.Value> {
    try validate(fd, direction: O_WRONLY, error: .notReadable(fd), allowDirectory: false)
    let holder = DescriptorHolder(fd: fd, ownership: ownership)
    let isRegular = (try? System.status(fd).get()).map(System.isRegular) ?? false
    return DescriptorObservable { observer in
      let delivery = DispatchQueue(label: "IndefiniteObservable.FileDescriptors", target: queue)
      let fd: Int32
      switch holder.acquire() {
      case .success(let duplicate): fd = duplicate
      case .failure(let failure): return report(failure, to: observer, on: delivery)
      }
      guard isRegular else {
        let reader = SourceReader(
          holder: holder, fd: fd, decoder: decoder(), chunkSize: chunkSize, observer: observer,
          queue: delivery, target: queue)
        return reader.disconnect
      }
      let reader = FileReader(
        holder: holder, fd: fd, decoder: decoder(), chunkSize: chunkSize, observer: observer,
        queue: delivery, target: queue, following: refill != nil)
      let refilling = refill?.subscribe { reader.refill() }
      return {
        refilling?.unsubscribe()
        reader.disconnect()
      }
    }
  }

  private static func readiness(
    _ fd: Int32,
    ownership: DescriptorOwnership,
    queue: DispatchQueue?,
    events: Int16,
    makeSource: @escaping (Int32, DispatchQueue) -> any DispatchSourceProtocol
  ) -> DescriptorObservable<Int> {
    let holder = DescriptorHolder(fd: fd, ownership: ownership)
    return DescriptorObservable { observer in
      let delivery = DispatchQueue(label: "IndefiniteObservable.FileDescriptors", target: queue)
      switch holder.acquire() {
      case .success(let fd):
        let watcher = ReadinessWatcher(
          holder: holder, fd: fd, queue: delivery, target: queue, events: events,
          makeSource: makeSource, observer: observer)
        return watcher.disconnect
      case .failure(let failure):
        return report(failure, to: observer, on: delivery)
      }
    }
  }

  /// Reports a subscription that could not start on its status channel, on the delivery queue.
  private static func report<Value>(
    _ failure: FileDescriptorError,
    to observer: DescriptorObserver<Value>,
    on queue: DispatchQueue
  ) -> Disconnect {
    let report = UncheckedSendable { observer.status(.failed(failure)) }
    queue.async { report.value() }
    return noopDisconnect
  }
}

/// Carries a value that is not `Sendable` to one other queue, where it alone is used.
struct UncheckedSendable<Value>: @unchecked Sendable {
  // Guard: the value is handed over once and used only on the receiving queue.
  let value: Value
  init(_ value: Value) { self.value = value }
}
