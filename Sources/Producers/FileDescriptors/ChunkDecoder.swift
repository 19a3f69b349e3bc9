/// Turns the chunks read from a descriptor into the values of a stream.
protocol ChunkDecoder {
  associatedtype Value
  /// Emits the values that `chunk` completes, keeping any unfinished rest.
  mutating func decode(_ chunk: UnsafeRawBufferPointer, emit: (Value) -> Bool)
  /// Emits the unfinished rest, at a final end of file.
  mutating func flush(emit: (Value) -> Bool)
  /// Drops the unfinished rest, when the file was truncated.
  mutating func reset()
}

/// Passes chunks on as byte arrays.
struct ByteChunks: ChunkDecoder {
  /// Unused: a decoder of size zero, stored in a reader (a generic class), made
  /// ThreadSanitizer see each access to it as a write at the reader's address, racing with
  /// any other thread's read of the reader's header (a false report, in every TSan run of the
  /// file-watch tests). One byte of state gives it an address of its own.
  private var unused: UInt8 = 0

  mutating func decode(_ chunk: UnsafeRawBufferPointer, emit: ([UInt8]) -> Bool) {
    _ = emit([UInt8](chunk))
  }
  mutating func flush(emit: ([UInt8]) -> Bool) {}
  mutating func reset() {}
}

/// Splits chunks into lines: on LF, dropping a CR before it; an unfinished line waits for the
/// rest of its bytes, and one longer than `maximumLength` bytes is cut into pieces of that size.
/// Bytes that are not UTF-8 become U+FFFD.
struct LineDecoder: ChunkDecoder {
  let maximumLength: Int
  private var partial: [UInt8] = []

  init(maximumLength: Int) {
    self.maximumLength = maximumLength
  }

  mutating func decode(_ chunk: UnsafeRawBufferPointer, emit: (String) -> Bool) {
    var start = chunk.startIndex
    while start < chunk.endIndex {
      let newline = chunk[start...].firstIndex(of: 0x0A)
      var segment = chunk[start..<(newline ?? chunk.endIndex)]
      // A line that would grow past the maximum is delivered in pieces of that length.
      while partial.count + segment.count > maximumLength {
        let count = maximumLength - partial.count
        partial.append(contentsOf: segment.prefix(count))
        segment = segment.dropFirst(count)
        let piece = String(decoding: partial, as: UTF8.self)
        partial.removeAll(keepingCapacity: true)
        if !emit(piece) { return }
      }
      guard let newline else {
        partial.append(contentsOf: segment)
        return
      }
      let line: String
      if partial.isEmpty {
        line = Self.text(segment)
      } else {
        partial.append(contentsOf: segment)
        line = partial.withUnsafeBytes { Self.text($0[...]) }
        partial.removeAll(keepingCapacity: true)
      }
      start = newline + 1
      if !emit(line) { return }
    }
  }

  mutating func flush(emit: (String) -> Bool) {
    guard !partial.isEmpty else { return }
    let line = partial.withUnsafeBytes { Self.text($0[...]) }
    partial.removeAll()
    _ = emit(line)
  }

  mutating func reset() {
    partial.removeAll()
  }

  /// The text of one line's bytes, without a final CR.
  private static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
    let end = bytes.last == 0x0D ? bytes.endIndex - 1 : bytes.endIndex
    return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
  }
}
