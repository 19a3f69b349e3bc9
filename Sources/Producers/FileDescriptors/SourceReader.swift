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
/// while `poll` says a read would not block, up to one chunk's worth of bytes, and hands their
/// values to the subscriber's actor; the next turn is asked for once the subscriber has
/// received them (``DescriptorReader/deliver(_:then:status:isolation:)``), so a busy actor is never
/// read ahead of. The turns stop at end of file (reported) or at a failure (reported). (Not
/// with a Dispatch read source: see ``DescriptorPoller`` for the crash that they cause on
/// Linux.)
///
/// A device that `poll` always says is ready is read in turns for as long as the subscription
/// lasts: `/dev/null` says end of file on the first turn, and `/dev/zero` never ends.
final class SourceReader<Decoder: ChunkDecoder>: Sendable {
  private let reader: DescriptorReader<Decoder.Value, Decoder>
  // The most bytes one turn reads: the most that one turn decodes and delivers.
  private let chunkSize: Int

  /// Starts reading `fd`, a descriptor acquired from `holder`, which the reader now owns.
  init(
    holder: DescriptorHolder,
    fd: Int32,
    decoder: Decoder,
    chunkSize: Int,
    observer: ObserverGate<DescriptorEvent<Decoder.Value>>
  ) {
    self.chunkSize = chunkSize
    reader = DescriptorReader(
      holder: holder, fd: fd, state: decoder, observer: observer)
    waitForData()
  }

  /// Ends the subscription (see ``DescriptorReader/disconnect()``).
  func disconnect() { reader.disconnect() }

  /// What one turn found.
  private enum Outcome {
    // Values to deliver (perhaps none), then the next turn, once the descriptor is readable
    // (at once if it has more).
    case values([Decoder.Value])
    case endOfFile([Decoder.Value])
    case failed([Decoder.Value], Errno)
  }

  /// One turn, on the poller's thread: reads while a read would not block, up to one chunk of
  /// bytes, and hands the values to the subscriber; the next turn follows their delivery.
  /// Dispatch on Linux signals new data only once, so the turns go on until the descriptor has
  /// nothing more: bytes left behind would never be announced again.
  private func readTurn() {
    let chunkSize = self.chunkSize
    let outcome = reader.withTurn { fd, decoder -> Outcome in
      var values: [Decoder.Value] = []
      let emit = { (value: Decoder.Value) -> Bool in
        values.append(value)
        return true
      }
      var bytesRead = 0
      return withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 1) { buffer in
        while true {
          guard System.isReady(fd, for: Int16(POLLIN)) else { return .values(values) }
          // A chunk that completed nothing (part of a long line) is read on at once.
          let room = bytesRead < chunkSize ? chunkSize - bytesRead : chunkSize
          switch System.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])) {
          case .success(0):
            decoder.flush(emit: emit)
            return .endOfFile(values)
          case .success(let count):
            decoder.decode(UnsafeRawBufferPointer(rebasing: buffer[..<count]), emit: emit)
            bytesRead += count
            if bytesRead >= chunkSize {
              if !values.isEmpty { return .values(values) }
              bytesRead = 0
            }
          case .failure(let errno) where errno.rawValue == EAGAIN || errno.rawValue == EWOULDBLOCK:
            return .values(values)
          case .failure(let errno):
            return .failed(values, errno)
          }
        }
      }
    }
    switch outcome {
    case nil: return
    case .values(let values)?:
      if values.isEmpty { return waitForData() }
      reader.deliver(values, then: waitForData)
    case .endOfFile(let values)?:
      if !values.isEmpty { reader.deliver(values) }
      reader.report(.endOfFile)
      reader.end()
    case .failed(let values, let errno)?:
      if !values.isEmpty { reader.deliver(values) }
      reader.report(.failed(.readFailed(reader.holder.fd, errno)))
      reader.end()
    }
  }

  /// Asks for the next turn on the poller's thread, once the descriptor is readable.
  @Sendable private func waitForData() {
    reader.wait(for: Int16(POLLIN)) { [self] in readTurn() }
  }
}
