/// Turns the chunks read from a descriptor into the values of a stream.
protocol ChunkDecoder: Sendable {
  associatedtype Value: Sendable
  /// Emits the values that `chunk` completes, keeping any unfinished rest.
  mutating func decode(_ chunk: UnsafeRawBufferPointer, emit: (Value) -> Bool)
  /// Emits the unfinished rest, at a final end of file.
  mutating func flush(emit: (Value) -> Bool)
  /// Drops the unfinished rest, when the file was truncated.
  mutating func reset()
}

/// Passes chunks on as byte arrays.
struct ByteChunks: ChunkDecoder {
  /// The bytes passed on so far. (It also gives the type a size: the thread sanitizer reports
  /// a false race on the mutating accesses of a stored property of a zero-sized type, whose
  /// address is that of the object holding it.)
  private(set) var byteCount = 0

  mutating func decode(_ chunk: UnsafeRawBufferPointer, emit: ([UInt8]) -> Bool) {
    byteCount += chunk.count
    _ = emit([UInt8](chunk))
  }
  mutating func flush(emit: ([UInt8]) -> Bool) {}
  mutating func reset() {}
}

/// Turns chunks into the lines of a ``LineSplitter``, as strings; see it for the rules.
struct LineDecoder: ChunkDecoder {
  private var splitter: LineSplitter

  /// Decodes lines with `splitter`, as it is (usually new).
  init(splitter: LineSplitter) {
    self.splitter = splitter
  }

  mutating func decode(_ chunk: UnsafeRawBufferPointer, emit: (String) -> Bool) {
    // Once `emit` says stop (the subscription ended), the rest of the chunk is split but not
    // delivered.
    var delivering = true
    splitter.split(chunk) { line in
      if delivering { delivering = emit(line.text) }
    }
  }

  mutating func flush(emit: (String) -> Bool) {
    var delivering = true
    splitter.flush { line in
      if delivering { delivering = emit(line.text) }
    }
  }

  mutating func reset() {
    splitter.reset()
  }
}
