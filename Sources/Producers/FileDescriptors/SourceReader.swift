import IndefiniteObservable
import Multicast

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
/// Reading goes in turns, on the ``DescriptorPoller``'s thread, which has just seen the
/// descriptor readable: one thread switch from there to the subscriber's actor. Each turn reads
/// while `poll` says a read would not block, up to one chunk's worth of bytes, and hands them
/// to the subscriber's actor; the next turn is asked for once the subscriber has
/// received them (``DescriptorReader/deliver(_:then:status:isolation:)``), so a busy actor is never
/// read ahead of. The turns stop at end of file (reported) or at a failure (reported). (Not
/// with a Dispatch read source: see ``DescriptorPoller`` for the crash that they cause on
/// Linux.)
///
/// A device that `poll` always says is ready is read in turns for as long as the subscription
/// lasts: `/dev/null` says end of file on the first turn, and `/dev/zero` never ends.
final class SourceReader: Sendable {
  private let reader: DescriptorReader<[UInt8], Void>
  // The most bytes one turn reads and hands over.
  private let chunkSize: Int

  /// Starts reading `fd`, a descriptor acquired from `holder`, which the reader now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    chunkSize: Int,
    observer: ObserverGate<DescriptorEvent<[UInt8]>>
  ) {
    self.chunkSize = chunkSize
    reader = DescriptorReader(holder: holder, fd: fd, state: (), observer: observer)
    waitForData()
  }

  /// Ends the subscription (see ``DescriptorReader/disconnect()``).
  func disconnect() { reader.disconnect() }

  /// What one turn found.
  private enum Outcome {
    // The bytes of each read to deliver (perhaps none), then the next turn, once the
    // descriptor is readable (at once if it has more).
    case chunks([[UInt8]])
    case endOfFile([[UInt8]])
    case failed([[UInt8]], Errno)
  }

  /// One turn, on the poller's thread: reads while a read would not block, up to one chunk of
  /// bytes, and hands them to the subscriber; the next turn follows their delivery. A read that
  /// returns less than it asked for found the descriptor drained for now (a pipe or a socket
  /// returns what it holds; a terminal, a line), so the turn ends there, with no `poll` to
  /// learn it: the poller's waits are level-triggered, so bytes that arrived since are
  /// announced at once when the next turn's wait begins.
  private func readTurn() {
    let chunkSize = self.chunkSize
    let outcome = reader.withTurn { fd, _ -> Outcome in
      var chunks: [[UInt8]] = []
      var bytesRead = 0
      return withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) { buffer in
        while true {
          guard System.isReady(fd, for: Int16(POLLIN)) else { return .chunks(chunks) }
          let room = chunkSize - bytesRead
          switch System.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])) {
          case .success(0):
            return .endOfFile(chunks)
          case .success(let count):
            chunks.append([UInt8](UnsafeRawBufferPointer(rebasing: buffer[..<count])))
            bytesRead += count
            if count < room || bytesRead >= chunkSize { return .chunks(chunks) }
          case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
            return .chunks(chunks)
          case .failure(let errno):
            return .failed(chunks, errno)
          }
        }
      }
    }
    switch outcome {
    case nil: return
    case .chunks(let chunks)?:
      if chunks.isEmpty { return waitForData() }
      reader.deliver(chunks, then: waitForData)
    case .endOfFile(let chunks)?:
      if !chunks.isEmpty { reader.deliver(chunks) }
      reader.report(.endOfFile)
      reader.end()
    case .failed(let chunks, let errno)?:
      if !chunks.isEmpty { reader.deliver(chunks) }
      reader.report(.failed(.readFailed(reader.holder.fd, errno)))
      reader.end()
    }
  }

  /// Asks for the next turn on the poller's thread, once the descriptor is readable.
  @Sendable private func waitForData() {
    reader.wait(for: Int16(POLLIN)) { [self] in readTurn() }
  }
}
