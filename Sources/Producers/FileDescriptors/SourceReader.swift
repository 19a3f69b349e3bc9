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
/// never read ahead of. Turns start with the subscription and go on while `poll` says ready;
/// they stop at end of file (reported), at a failure (reported), or when the descriptor has
/// nothing for now. Only then does the reader wait, with ``DescriptorPoller``, for data to
/// arrive, and the turns start again when it does. (Not with a Dispatch read source: see
/// ``DescriptorPoller`` for the crash that they cause on Linux.)
///
/// A device that `poll` always says is ready never waits: `/dev/null` says end of file on the
/// first turn, and `/dev/zero` is read in turns for as long as the subscription lasts.
///
/// `decoder` is used only on the queue (see ``DescriptorReader``).
final class SourceReader<Decoder: ChunkDecoder>: DescriptorReader<Decoder.Value>,
  @unchecked Sendable
{
  private var decoder: Decoder
  // The most bytes one read asks for: the most that one turn decodes and delivers.
  private let chunkSize: Int
  // Whether reading is over (end of file or failure), and whether the reader is on its way out.

  /// Starts reading `fd`, a descriptor acquired from `holder`, which the reader now owns.
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
    guard !turnMustStop else { return }
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
      end()
    case .success:
      // A chunk that completed nothing (part of a long line) needs no delivery to wait for.
      if values.isEmpty { return queue.async(execute: readTurn) }
      deliver(values, then: onQueue(readTurn))
    case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
      waitForData()
    case .failure(let errno):
      report(.failed(.readFailed(holder.fd, errno)))
      end()
    }
  }

  /// Ends the turns until data arrives; they start again then.
  private func waitForData() {
    wait(for: Int16(POLLIN), then: readTurn)
  }
}
