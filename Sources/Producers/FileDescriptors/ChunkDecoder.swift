/// Turns what a descriptor's reader hands over (the bytes of each read, or a readiness count)
/// into a stream's values, on the subscriber's side of its gate: one decoder a subscription,
/// called one delivery at a time, in the order read.
///
/// Decoding where the values are delivered makes each value just before its subscriber takes
/// it: a line's `String` is released (and its memory used again) before the next one is made,
/// as a loop of `read` and `memchr` does, rather than a whole chunk's lines held at once.
protocol ChunkDecoder: Sendable {
  associatedtype Chunk: Sendable
  associatedtype Value: Sendable
  /// Emits the values that `chunk` completes, keeping any unfinished rest; stops when `emit`
  /// returns false (the subscription ended).
  mutating func decode(_ chunk: Chunk, emit: (Value) -> Bool)
  /// Emits the unfinished rest, at an end of file.
  mutating func finish(emit: (Value) -> Bool)
  /// Drops the unfinished rest, when the file was truncated.
  mutating func reset()
}

/// Passes each chunk on as one value: the bytes of a read, or a readiness count.
struct WholeChunks<Chunk: Sendable>: ChunkDecoder {
  func decode(_ chunk: Chunk, emit: (Chunk) -> Bool) { _ = emit(chunk) }
  func finish(emit: (Chunk) -> Bool) {}
  func reset() {}
}

/// Turns chunks into the lines of a ``LineSplitter``, as strings; see it for the rules.
struct LineDecoder: ChunkDecoder {
  private var splitter: LineSplitter
  /// Whether an end of file is final, so that it ends the unfinished last line: false for a
  /// followed regular file, whose end moves.
  private let endOfFileIsFinal: Bool

  /// Decodes lines with `splitter`, as it is (usually new).
  init(splitter: LineSplitter, endOfFileIsFinal: Bool) {
    self.splitter = splitter
    self.endOfFileIsFinal = endOfFileIsFinal
  }

  mutating func decode(_ chunk: [UInt8], emit: (String) -> Bool) {
    // Once `emit` says stop (the subscription ended), the rest of the chunk is split but not
    // delivered.
    var delivering = true
    splitter.split(chunk) { line in
      if delivering { delivering = emit(line.text) }
    }
  }

  mutating func finish(emit: (String) -> Bool) {
    guard endOfFileIsFinal else { return }
    var delivering = true
    splitter.flush { line in
      if delivering { delivering = emit(line.text) }
    }
  }

  mutating func reset() {
    splitter.reset()
  }
}
