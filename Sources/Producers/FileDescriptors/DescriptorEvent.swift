import Multicast

/// One call of a descriptor stream's gate: the chunk of one turn of its reader, with what to
/// do once the subscriber has its values and a status that follows them, or a status.
enum DescriptorEvent<Chunk: Sendable>: Sendable {
  case chunk(Chunk, then: (@Sendable () -> Void)?, status: DescriptorStatus? = nil)
  case status(DescriptorStatus)
}

extension ObserverGate {
  /// Decodes the chunk of `event` with `decoder` and calls `next` with its values one by one
  /// while this gate is open (a subscriber may unsubscribe in the middle of a chunk), then tells
  /// `status` the status that follows them, and calls the continuation if the gate still is
  /// open; or tells `status` the event's status.
  func deliver<Decoder: ChunkDecoder>(
    _ event: DescriptorEvent<Decoder.Chunk>, decoding decoder: inout Decoder,
    next: (Decoder.Value) -> Void, status: (DescriptorStatus) -> Void
  ) where Value == DescriptorEvent<Decoder.Chunk> {
    switch event {
    case .chunk(let chunk, let then, let following):
      decoder.decode(chunk) { value in emit(value, to: next) }
      guard !isClosed else { return }
      if let following {
        tell(following, decoding: &decoder, next: next, status: status)
      }
      if !isClosed { then?() }
    case .status(let descriptorStatus):
      tell(descriptorStatus, decoding: &decoder, next: next, status: status)
    }
  }

  /// Calls `next` with `value` while this gate is open; returns whether it was.
  @inline(__always)
  private func emit<Element>(_ value: Element, to next: (Element) -> Void) -> Bool {
    guard !isClosed else { return false }
    next(value)
    return true
  }

  /// Tells `status` about `descriptorStatus` while this gate is open, after what it means for
  /// the decoder: an end of file finishes an unfinished value, a truncation drops it.
  private func tell<Decoder: ChunkDecoder>(
    _ descriptorStatus: DescriptorStatus, decoding decoder: inout Decoder,
    next: (Decoder.Value) -> Void, status: (DescriptorStatus) -> Void
  ) {
    switch descriptorStatus {
    case .endOfFile: decoder.finish { value in emit(value, to: next) }
    case .truncated: decoder.reset()
    case .failed: break
    }
    guard !isClosed else { return }
    status(descriptorStatus)
  }
}

/// The gate, for the gate's own closure (which runs on its actor only) to ask whether the
/// subscription is still open.
///
/// A strong reference: the cycle it makes (gate, closure, reference, gate) ends when the gate
/// closes, which releases the closure. A weak one would give the gate a side table, which
/// LeakSanitizer reports as a leak when the program exits while the stream is subscribed (seen:
/// `follow` stopped by SIGTERM under load).
final class GateReference<Value: Sendable> {
  var gate: ObserverGate<Value>?
}
