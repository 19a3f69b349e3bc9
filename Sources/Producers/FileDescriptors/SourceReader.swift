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
/// once, if `poll` says a read would not block, up to one chunk's worth of bytes, and hands them
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
    // Nothing to read now: the next turn, once the descriptor is readable.
    case nothing
    // The bytes of a read, then the next turn, once the descriptor is readable (at once if it
    // has more).
    case chunk([UInt8])
    case endOfFile
    case failed(Errno)
  }

  /// One turn, on the poller's thread: one read, of up to one chunk of bytes, if a read would
  /// not block, and its bytes handed to the subscriber; the next turn follows their delivery.
  /// A read that returns less than it asked for found the descriptor drained for now (a pipe or
  /// a socket returns what it holds; a terminal, a line), and one that returns a whole chunk is
  /// as much as a turn takes, so the turn ends there either way, with no `poll` to learn whether
  /// more is there: the poller's waits are level-triggered, so bytes that arrived since are
  /// announced at once when the next turn's wait begins.
  private func readTurn() {
    let chunkSize = self.chunkSize
    let outcome = reader.withTurn { fd, _ -> Outcome in
      // A descriptor that blocks (another subscription read what the poller saw) is not read.
      guard System.isReady(fd, for: Int16(POLLIN)) else { return .nothing }
      return withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) { buffer in
        switch System.read(fd, into: buffer) {
        case .success(0):
          return .endOfFile
        case .success(let count):
          return .chunk([UInt8](UnsafeRawBufferPointer(rebasing: buffer[..<count])))
        case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
          return .nothing
        case .failure(let errno):
          return .failed(errno)
        }
      }
    }
    switch outcome {
    case nil: return
    case .nothing?: waitForData()
    case .chunk(let chunk)?: reader.deliver(chunk, then: waitForData)
    case .endOfFile?:
      reader.report(.endOfFile)
      reader.end()
    case .failed(let errno)?:
      reader.report(.failed(.readFailed(reader.holder.fd, errno)))
      reader.end()
    }
  }

  /// Asks for the next turn on the poller's thread, once the descriptor is readable.
  @Sendable private func waitForData() {
    reader.wait(for: Int16(POLLIN)) { [self] in readTurn() }
  }
}
