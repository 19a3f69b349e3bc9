import Multicast

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a regular file for one subscription: to its end at once, then again each time it is
/// refilled, from where it stopped (or from the start, after a truncation: the file no longer
/// holds the bytes read before the position, see ``FileCheckpoint``).
///
/// A regular file is always "readable", so no wait can say it has grown: a pass is started by
/// a refill instead. ``refill(isolation:)`` reads on the calling thread (the thread where the
/// trigger's event arrived: one thread switch from there to the subscriber's actor; none when
/// the trigger delivers on that actor, which then receives the values in the same call). The
/// reads are the file's ``FileReader``'s, which keeps the position and never moves the
/// descriptor's offset. A pass is a series of turns of about one chunk each; a turn that reads the file's end in the same turn reports it with its values.
/// The next turn is asked for once the subscriber has received the values of the last
/// (``DescriptorReader/deliver(_:then:status:isolation:)``), on the poller's thread, so a long file
/// takes turns with the other work of the subscriber's actor and is never read ahead of it. A
/// refill asked for during a pass makes the pass read on to the new end.
/// A `/proc` or `/sys` file is never taken for truncated (``FileReader`` says why).
final class FilePasses: Sendable {
  private let reader: DescriptorReader<[UInt8], Pass>
  // The most bytes one turn reads and hands over.
  private let chunkSize: Int

  /// The state of the passes, reached in the reader's turns.
  private struct Pass: Sendable {
    /// Reads the file, and keeps the position.
    var file: FileReader
    // Whether a pass is under way (a turn, or a delivery with a turn to come or with the end
    // of the pass to come), and whether another was asked for meanwhile: it starts when this
    // one ends, and checks the file again (it may have been truncated behind the position this
    // pass reads from). A pass ends only after its last bytes are handed over, so a pass
    // begun on another thread never hands its bytes over before them.
    var isPassing = false
    var passAgain = false
    var readSomething = false
    var reportedEnd = false
    var hasFailed = false
  }

  /// What a turn found, in order.
  private enum Piece {
    case chunk([UInt8])
    case status(DescriptorStatus)
  }

  /// What follows a turn, once what it found is handed over.
  private enum Next {
    /// Another turn of the pass, on the poller's thread, once the subscriber has the values.
    case turn
    /// The end of the pass, or the pass asked for meanwhile, on this thread.
    case end
    /// Nothing: no pass is under way, or another thread's pass will read on.
    case none
  }

  /// Takes over `fd`, a descriptor acquired from `holder`, which the reader now owns; the first
  /// pass waits for the first refill, which the stream asks for once it has subscribed to its
  /// refill trigger (so that a write right after the first pass read is never missed: its
  /// trigger comes after the subscription).
  init(
    holder: DescriptorHolder,
    fd: Int32,
    chunkSize: Int,
    observer: ObserverGate<DescriptorEvent<[UInt8]>>
  ) {
    self.chunkSize = chunkSize
    reader = DescriptorReader(
      holder: holder, fd: fd, state: Pass(file: FileReader(descriptor: fd)), observer: observer)
  }

  /// Ends the subscription (see ``DescriptorReader/disconnect()``).
  func disconnect() { reader.disconnect() }

  /// Reads what was appended, on the calling thread, and sends it to the subscriber's actor:
  /// before this returns when called there (`isolation`, which the compiler passes), else in a
  /// turn of that actor; during a pass, makes the pass read on to the new end instead.
  func refill(isolation: isolated (any Actor)? = #isolation) {
    turn { pass, pieces in
      guard !pass.hasFailed else { return .none }
      guard !pass.isPassing else {
        pass.passAgain = true
        return .none
      }
      beginPass(&pass)
      return readOn(&pass, &pieces)
    }
  }

  /// The next turn of the pass under way, on the poller's thread: from the start of the file
  /// if it was truncated since the last turn (the subscriber may have done it; its read says).
  @Sendable private func continuePass() {
    reader.wait(for: Int16(POLLIN)) { [self] in
      turn { pass, pieces in readOn(&pass, &pieces) }
    }
  }

  /// Runs `body` as a turn, then sends what it found, in order; when the pass goes on, the
  /// next turn follows the delivery of its last values; when it read to the end, the pass ends
  /// in a turn after the hand-over, or reads on if another pass was asked for meanwhile.
  private func turn(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (inout Pass, inout [Piece]) -> Next
  ) {
    var next = handOverTurn(reader.withTurn { _, pass in run(body, &pass, reserving: 2) })
    while next == .end {
      next = handOverTurn(
        reader.withTurn { _, pass in
          run({ pass, pieces in endPass(&pass, &pieces) }, &pass, reserving: 0)
        })
    }
  }

  /// Runs `body` with room for `capacity` pieces: 2 for a turn that reads (its chunk, then
  /// the end of the file, in one allocation), none for the end of a pass, which nearly always
  /// finds nothing.
  private func run(
    _ body: (inout Pass, inout [Piece]) -> Next, _ pass: inout Pass,
    reserving capacity: Int
  ) -> ([Piece], Next) {
    var pieces: [Piece] = []
    pieces.reserveCapacity(capacity)
    let next = body(&pass, &pieces)
    return (pieces, next)
  }

  /// Sends what a turn found, in order, outside the reader's lock, and says what follows.
  private func handOverTurn(
    _ turn: ([Piece], Next)?, isolation: isolated (any Actor)? = #isolation
  ) -> Next {
    guard let (pieces, next) = turn else { return .none }
    var index = pieces.startIndex
    while index < pieces.endIndex {
      switch pieces[index] {
      case .chunk(let chunk):
        // A chunk followed by a status (the end of the file, most often) goes in one delivery.
        var status: DescriptorStatus?
        if index + 1 < pieces.endIndex, case .status(let following) = pieces[index + 1] {
          status = following
          index += 1
        }
        let isLast = index == pieces.count - 1
        reader.deliver(chunk, then: next == .turn && isLast ? continuePass : nil, status: status)
      case .status(let status): reader.report(status)
      }
      index += 1
    }
    return next
  }

  /// Ends the pass whose last values were handed over, or, if a refill asked for another
  /// meanwhile, begins it and reads on.
  private func endPass(_ pass: inout Pass, _ pieces: inout [Piece]) -> Next {
    guard pass.passAgain, !pass.hasFailed else {
      pass.isPassing = false
      return .none
    }
    pass.passAgain = false
    beginPass(&pass)
    return readOn(&pass, &pieces)
  }

  /// Begins a pass, whose first read tells whether the file was truncated.
  private func beginPass(_ pass: inout Pass) {
    pass.isPassing = true
    pass.readSomething = false
  }

  /// Reads on, in one turn, with the file's ``FileReader``, until the file's end (`.end`: the
  /// pass ends once its bytes are handed over; another begins at once if one was asked for)
  /// or until it has read about one chunk of bytes (`.turn`: the pass goes on in a later
  /// turn). A file truncated or rewritten since the last read is read again from its
  /// start, after a `.truncated` status. A change costs one `pread`.
  private func readOn(_ pass: inout Pass, _ pieces: inout [Piece]) -> Next {
    // The bytes read since the last hand-over: one chunk, however many reads made it.
    var chunk: [UInt8] = []
    while true {
      let found = pass.file.read(upTo: chunkSize) { bytes in
        pass.readSomething = true
        chunk.append(contentsOf: bytes)
      }
      switch found {
      case .success(.endOfFile):
        Self.handOver(&chunk, to: &pieces)
        if pass.readSomething || !pass.reportedEnd {
          pass.reportedEnd = true
          pieces.append(.status(.endOfFile))
        }
        guard pass.passAgain else { return .end }
        pass.passAgain = false
        beginPass(&pass)
      case .success(.more):
        Self.handOver(&chunk, to: &pieces)
        return .turn
      case .success(.truncated):
        // Truncated, or rewritten: from the start again.
        Self.handOver(&chunk, to: &pieces)
        pieces.append(.status(.truncated))
      case .failure(let errno):
        pass.isPassing = false
        pass.hasFailed = true
        Self.handOver(&chunk, to: &pieces)
        pieces.append(.status(.failed(.readFailed(reader.holder.fd, errno))))
        return Next.none
      }
    }
  }

  /// Moves the bytes read so far, if any, to the pieces of the turn.
  private static func handOver(_ chunk: inout [UInt8], to pieces: inout [Piece]) {
    if !chunk.isEmpty { pieces.append(.chunk(chunk)) }
    chunk = []
  }
}
