import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a pipe, socket, terminal or device for one subscription, a chunk at a time, until end
/// of file, failure or disconnect.
///
/// Reading goes in turns. Each turn asks `poll` whether a read would block, reads one chunk if
/// not, and hands its values to the subscriber's actor; the next turn is asked for once the
/// subscriber has received them (``DescriptorReader/deliver(_:then:)``), so a busy actor is
/// never read ahead of. Turns start with the subscription and
/// go on while `poll` says ready; they stop at end of file (reported), at a failure (reported),
/// or when the descriptor has nothing for now. Only then does a Dispatch read source watch the
/// descriptor, made the first time it is needed, and start the turns again when data arrives;
/// it is suspended while they run, since Dispatch re-arms a read source after each event and a
/// descriptor that stays readable fires it again at once (about 15 events for each turn of a
/// flood, each a block on the queue announcing what the turns read anyway).
///
/// A device that `poll` always says is ready never needs the source, which matters on Linux:
/// epoll refuses a device without a poll operation, such as `/dev/null`, `/dev/zero` or
/// `/dev/urandom`, and a read source on one never fires. So `/dev/null` says end of file on the
/// first turn, and `/dev/zero` is read in turns for as long as the subscription lasts.
///
/// At end of file the source, if there is one, is cancelled from its own event handler, which
/// the hang-up fires: libdispatch's epoll loop reads freed memory when a read source is
/// cancelled while the hang-up of its descriptor is being merged (`_dispatch_event_loop_drain`
/// crashed in 4 runs of 20 of the descriptor tests under ThreadSanitizer when turns cancelled
/// it at end of file; the event handler is where the reader always cancelled it before).
///
/// `decoder`, `source`, `isReading`, `isSuspended`, `isFinished` and `isEnding` are used only
/// on the queue (see ``DescriptorReader``).
final class SourceReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>,
  @unchecked Sendable
{
  private var decoder: Decoder
  // The most bytes one read asks for: the most that one turn decodes and delivers.
  private let chunkSize: Int
  private var source: DispatchSourceRead?
  // Whether turns are under way (one running or waiting), and whether the source is suspended
  // for them. A suspended source must be resumed before it can go: its cancel handler, which
  // releases the reader, waits for that.
  private var isReading = true
  private var isSuspended = false
  // Whether reading is over (end of file or failure), and whether the reader is on its way out
  // (the source cancelled, or, without one, the reader released).
  private var isFinished = false
  private var isEnding = false

  /// Starts reading `fd`, a duplicate acquired from `holder`, which the reader now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    chunkSize: Int,
    observer: DescriptorObserver<Decoder.Value>,
    queue: DispatchQueue,
    isolation: isolated any Actor
  ) {
    self.decoder = decoder
    self.chunkSize = chunkSize
    super.init(holder: holder, fd: fd, queue: queue, observer: observer, isolation: isolation)
    queue.async(execute: readTurn)
  }

  /// One turn, on the reader's queue: reads one chunk, unless a read would block, and hands its
  /// values to the subscriber; the next turn follows their delivery. Dispatch on Linux signals
  /// new data only once, so the turns go on until the descriptor has nothing more: bytes left
  /// behind would never be announced again.
  @Sendable private func readTurn() {
    guard !isFinished, !isEnding else { return }
    guard !isCancelled else { return end() }
    guard System.isReady(fd, for: Int16(POLLIN)) else { return waitForData() }
    var values: [Decoder.Value] = []
    let emit = { (value: Decoder.Value) -> Bool in
      values.append(value)
      return true
    }
    let result = withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) { buffer in
      System.read(fd, into: buffer).map { count in
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        if count > 0 { decoder.decode(chunk, emit: emit) }
        return count
      }
    }
    switch result {
    case .success(0):
      decoder.flush(emit: emit)
      if !values.isEmpty { deliver(values) }
      report(.endOfFile)
      finishReading()
    case .success:
      // A chunk that completed nothing (part of a long line) needs no delivery to wait for.
      if values.isEmpty { return queue.async(execute: readTurn) }
      deliver(values, then: onQueue(readTurn))
    case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
      waitForData()
    case .failure(let errno):
      report(.failed(.readFailed(holder.fd, errno)))
      finishReading()
    }
  }

  /// Ends the turns until data arrives: the source, made now if this is the first time, watches
  /// the descriptor again.
  private func waitForData() {
    isReading = false
    if let source {
      if isSuspended {
        isSuspended = false
        source.resume()
      }
      return
    }
    let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    self.source = source
    // No registration handler: with one set, libdispatch's epoll loop on Linux crashed
    // (`_dispatch_event_loop_drain`) in about 1 run in 100 of a program reading a few pipes.
    source.setEventHandler(handler: dataArrived)
    source.setCancelHandler(handler: sourceCancelled)
    source.activate()
    LiveResources.opened(.dispatchSources)
  }

  /// Runs when Dispatch says the descriptor is readable, on the queue; after end of
  /// file, that is the hang-up, and the source is cancelled.
  @Sendable private func dataArrived() {
    guard let source, !isEnding else { return }
    if isFinished {
      isEnding = true
      source.cancel()
      return
    }
    guard !isReading else { return }
    isReading = true
    source.suspend()
    isSuspended = true
    readTurn()
  }

  /// Stops the turns for good, at end of file or a failure: without a source the reader is
  /// released now; a source is resumed, and cancelled by its next event (the hang-up), or at
  /// disconnect.
  private func finishReading() {
    isFinished = true
    isReading = false
    guard let source else { return end() }
    if isSuspended {
      isSuspended = false
      source.resume()
    }
  }

  /// Ends the reader, on the queue: cancels the source, whose cancel handler releases
  /// the reader once Dispatch has let go of the descriptor, or, without a source, releases it
  /// now. Runs once.
  @Sendable private func end() {
    guard !isEnding else { return }
    isEnding = true
    isReading = false
    guard let source else { return release() }
    source.cancel()
    if isSuspended {
      isSuspended = false
      source.resume()
    }
  }

  /// Runs once after the source was cancelled, on the queue: Dispatch no longer
  /// watches the duplicate, so it can be closed.
  @Sendable private func sourceCancelled() {
    source = nil
    LiveResources.closed(.dispatchSources)
    release()
  }

  /// Ends the reader on the queue, after the turn in progress, if any.
  override func stop() {
    queue.async(execute: end)
  }
}
