// This file uses nothing but the standard library, so that the fuzz target can compile it on
// its own (Fuzz/LineSplitterFuzz.swift): keep it that way.

/// Splits bytes, given in chunks of any size, into lines of text, and says how many bytes each
/// line took: the decoder behind ``FileDescriptors/lines(of:ownership:refill:maximumLineLength:)``,
/// for programs that read the bytes themselves and need to know where each line ends (to record
/// a position in a file, say).
///
/// ```swift
/// var splitter = LineSplitter()
/// var lines: [String] = []
/// splitter.split(Array("one\r\ntw".utf8)) { lines.append($0.text) }
/// splitter.split(Array("o\nthree".utf8)) { lines.append($0.text) }
/// print(lines)  // ["one", "two"]
/// print(splitter.unfinishedByteCount)  // 5
/// ```
///
/// The rules, which hold however the bytes are cut into chunks:
/// - A line ends at LF. A CR just before the LF is dropped, so CRLF text reads the same, and
///   so is a CR at the very end of the input when ``flush(_:)`` delivers an unfinished line.
/// - A line whose text is longer than ``maximumLineLength`` bytes is delivered in pieces,
///   each as long as possible without going over the maximum, and cut only between two
///   characters (Unicode scalars): valid UTF-8 is never broken, and the pieces of a line,
///   joined, are exactly its text. The one exception to the maximum: a single character
///   longer than it (a maximum of 1 and "é") is delivered whole, as a piece of its own, since
///   cutting it would alter the text. Cutting a CRLF line is decided on the text without its
///   CR, so CRLF reads like LF wherever the cut falls. A piece may split a grapheme cluster
///   (a letter and its combining accent, say).
/// - Bytes that are not UTF-8 become U+FFFD, as `String(decoding:as:)` makes them (one for
///   each maximal invalid sequence); a cut never falls inside such a sequence either, so
///   cutting never changes how many U+FFFD a line gets.
/// - Every byte is accounted for: the ``Line/byteCount`` of the lines delivered so far, plus
///   ``unfinishedByteCount``, is the number of bytes given (since the last ``reset()``).
///
/// A value type, with no lock: use each splitter from one thread at a time. Memory is bounded:
/// at most ``maximumLineLength`` plus 4 bytes wait for the rest of their line.
public struct LineSplitter: Sendable {
  /// One line, or one piece of a line longer than the maximum.
  public struct Line: Sendable, Hashable {
    /// The text, without its line ending.
    public var text: String
    /// The number of input bytes this line took, its line ending included.
    public var byteCount: Int
    /// How the line ended.
    public var end: End

    /// A line with its text, the bytes it took and how it ended.
    public init(text: String, byteCount: Int, end: End) {
      self.text = text
      self.byteCount = byteCount
      self.end = end
    }
  }

  /// How a ``Line`` ended.
  public enum End: Sendable, Hashable {
    /// At an LF.
    case lineFeed
    /// At a CR and an LF.
    case carriageReturnLineFeed
    /// Cut at the maximum length: the next line delivered is the rest of this one.
    case cut
    /// At the end of the input, with no line ending: delivered by ``LineSplitter/flush(_:)``.
    case endOfInput
  }

  /// The longest text delivered as one line, in bytes; at least 1.
  public let maximumLineLength: Int

  /// The bytes of the unfinished line, which wait for the rest of it. Starts at a character
  /// boundary (the start of the input, a line end or a cut).
  private var pending: [UInt8] = []

  /// The number of bytes given that are not yet part of a delivered line: the start of a line
  /// whose end has not arrived.
  public var unfinishedByteCount: Int { pending.count }

  /// A splitter that cuts lines longer than 1 MiB into pieces.
  public init() {
    maximumLineLength = 1 << 20
  }

  /// A splitter that cuts lines longer than `maximumLineLength` bytes into pieces.
  ///
  /// - Throws: ``MaximumNotPositive`` for a maximum below 1, which no line could fit.
  public init(maximumLineLength: Int) throws(MaximumNotPositive) {
    guard maximumLineLength >= 1 else {
      throw MaximumNotPositive(maximumLineLength: maximumLineLength)
    }
    self.maximumLineLength = maximumLineLength
  }

  /// The error of a splitter asked for a maximum line length below 1.
  public struct MaximumNotPositive: Error, Hashable, Sendable, CustomStringConvertible {
    /// The maximum that was asked for.
    public let maximumLineLength: Int

    /// Makes the error for `maximumLineLength`.
    public init(maximumLineLength: Int) {
      self.maximumLineLength = maximumLineLength
    }

    /// A sentence saying what was wrong.
    public var description: String {
      "the maximum line length must be at least 1 byte, not \(maximumLineLength)"
    }
  }

  /// Passes each line that `bytes` completes to `body`, in order, and keeps the start of an
  /// unfinished line for the next call.
  ///
  /// - Parameters:
  ///   - bytes: The next bytes of the input, of any size: an `UnsafeRawBufferPointer` (a
  ///     buffer read into), a `[UInt8]`, or any other collection of bytes. Contiguous bytes
  ///     are split where they are; other collections are copied first.
  ///   - body: Called with each line, in order.
  @inlinable
  public mutating func split(_ bytes: some Collection<UInt8>, _ body: (Line) -> Void) {
    Self.withContiguous(bytes) { split(buffer: $0, body) }
  }

  /// Calls `body` with `bytes` as a raw buffer: in place when they are contiguous, else copied.
  @inlinable
  static func withContiguous<R>(
    _ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> R
  ) -> R {
    if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
      return result
    }
    return Array(bytes).withUnsafeBytes(body)
  }

  /// ``split(_:_:)`` of a buffer.
  @usableFromInline
  mutating func split(buffer bytes: UnsafeRawBufferPointer, _ body: (Line) -> Void) {
    var start = 0
    while start < bytes.count {
      guard let newline = Self.firstNewline(in: bytes, from: start) else {
        pending.append(contentsOf: bytes[start...])
        cutPending(body)
        return
      }
      let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<newline])
      if pending.isEmpty {
        deliverLine(segment, body)
      } else {
        pending.append(contentsOf: segment)
        pending.withUnsafeBytes { deliverLine($0, body) }
        pending.removeAll(keepingCapacity: true)
      }
      start = newline + 1
    }
  }

  /// Passes the lines that `bytes` completes, as `split(_:_:)`
  /// does, with one fast path: a run of complete lines of plain text (ASCII with no CR, each
  /// within ``maximumLineLength``) that starts a line goes to `plainLines` as it is, bytes and
  /// line endings, with the number of lines in it, instead of one `Line` each.
  ///
  /// What is passed is the same text and the same byte count as `split` would give: the lines
  /// of a plain run, joined with LFs, are its bytes. Anything else (a line begun in an earlier
  /// call, a CR, UTF-8 beyond ASCII, invalid bytes, a line past the maximum, the unfinished
  /// last line) takes `body`, as in `split`. For a program that copies lines out (a `tail`),
  /// where making a `String` of each plain line would only copy the same bytes.
  ///
  /// ```swift
  /// var splitter = LineSplitter()
  /// var out: [String] = []
  /// Array("one\ntwo\ncafé\nfour\nfi".utf8).withUnsafeBytes { bytes in
  ///   splitter.split(bytes, plainLines: { run, count in
  ///     out.append("\(count) plain: \(String(decoding: run, as: UTF8.self))")
  ///   }) { line in out.append(line.text) }
  /// }
  /// print(out)  // ["2 plain: one\ntwo\n", "café", "1 plain: four\n"]
  /// ```
  ///
  /// - Parameters:
  ///   - bytes: The next bytes of the input, as in ``split(_:_:)``.
  ///   - plainLines: Called with each run of complete plain lines, as they are, and how many
  ///     lines it holds; the run is valid during the call only.
  ///   - body: Called with each other line, in order with the runs.
  @inlinable
  public mutating func split(
    _ bytes: some Collection<UInt8>,
    plainLines: (_ run: UnsafeRawBufferPointer, _ lineCount: Int) -> Void,
    _ body: (Line) -> Void
  ) {
    Self.withContiguous(bytes) { split(buffer: $0, plainLines: plainLines, body) }
  }

  /// ``split(_:plainLines:_:)`` of a buffer.
  @usableFromInline
  mutating func split(
    buffer bytes: UnsafeRawBufferPointer,
    plainLines: (_ run: UnsafeRawBufferPointer, _ lineCount: Int) -> Void,
    _ body: (Line) -> Void
  ) {
    var rest = bytes
    while !rest.isEmpty {
      if !pending.isEmpty {
        // The end of a line begun earlier: the splitter knows its start.
        guard let newline = Self.firstNewline(in: rest, from: 0) else { break }
        split(buffer: UnsafeRawBufferPointer(rebasing: rest[...newline]), body)
        rest = UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])
        continue
      }
      let (end, count) = Self.plainPrefix(of: rest, maximum: maximumLineLength)
      if count > 0 {
        plainLines(UnsafeRawBufferPointer(rebasing: rest[..<end]), count)
        rest = UnsafeRawBufferPointer(rebasing: rest[end...])
      }
      // The next line is not plain (or not complete): the splitter's way, then plain again.
      guard let newline = Self.firstNewline(in: rest, from: 0) else { break }
      split(buffer: UnsafeRawBufferPointer(rebasing: rest[...newline]), body)
      rest = UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])
    }
    if !rest.isEmpty { split(buffer: rest, body) }
  }

  /// The offset of the first LF at or after `start` in `bytes`, or nil: eight bytes at a time,
  /// as `memchr` does (this file uses the standard library alone).
  @inline(__always)
  static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    let ones: UInt64 = 0x0101_0101_0101_0101
    var index = start
    while index + 8 <= bytes.count {
      let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      // A byte of `x` is zero where the word's is LF. `(x - ones) & ~x` sets the high bit of
      // each zero byte (and maybe of bytes after one, through the borrow): the lowest set bit
      // marks the first LF.
      let x = word ^ (ones &* 0x0A)
      let found = (x &- ones) & ~x & (ones &* 0x80)
      if found != 0 { return index + found.trailingZeroBitCount / 8 }
      index += 8
    }
    while index < bytes.count {
      if bytes[index] == 0x0A { return index }
      index += 1
    }
    return nil
  }

  /// Where the longest run of complete plain lines (ASCII, no CR, each at most `maximum`
  /// bytes of text) at the start of `bytes` ends, just past its last LF, and how many lines it
  /// holds; (0, 0) when the first line is not one.
  static func plainPrefix(
    of bytes: UnsafeRawBufferPointer, maximum: Int
  ) -> (end: Int, lines: Int) {
    var lines = 0
    var lineStart = 0  // where the line being scanned starts
    var index = 0
    // Eight bytes at a time. In a word with no byte of 0x80 or more, a byte of x ^ c is zero
    // exactly where the byte is c, and adding 0x7F to a byte sets its high bit unless it is
    // zero (no carry crosses bytes).
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high = ones &* 0x80
    let low = ones &* 0x7F
    // `index` stays at most `bytes.count`, so that adding 8 to it cannot overflow.
    while index &+ 8 <= bytes.count {
      let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      // A byte of 0x80 or more, or a CR (tested right only where no byte is 0x80 or more, and
      // not needed where one is): one test for both.
      if (word | ~((word ^ (ones &* 0x0D)) &+ low)) & high != 0 { break }
      var newlines = ~((word ^ (ones &* 0x0A)) &+ low) & high
      if newlines == 0 {
        index &+= 8
        continue
      }
      if maximum >= 8 {
        // Only the word's first LF can end a line longer than the maximum: a line ended by
        // another began in this word, after the LF before it, and is shorter than 8 bytes.
        let first = index &+ newlines.trailingZeroBitCount / 8
        if first &- lineStart > maximum { return (lineStart, lines) }
        // The number of LFs: each is one high bit, of a byte of its own; shifted down to the
        // byte's low bit, a multiplication by `ones` sums the bytes into the top one (no
        // software `popcount` on a CPU target without the instruction).
        lines &+= Int(truncatingIfNeeded: ((newlines >> 7) &* ones) >> 56)
        lineStart = index &+ (63 &- newlines.leadingZeroBitCount) / 8 &+ 1
        index &+= 8
        continue
      }
      // Each LF of the word ends a line: check its length.
      while newlines != 0 {
        let at = index + newlines.trailingZeroBitCount / 8
        if at - lineStart > maximum { return (lineStart, lines) }
        lines += 1
        lineStart = at + 1
        newlines &= newlines &- 1
      }
      index += 8
    }
    // The rest, and the word that stopped the loop, a byte at a time.
    while index < bytes.count {
      let byte = bytes[index]
      if byte >= 0x80 || byte == 0x0D { break }
      if byte == 0x0A {
        if index - lineStart > maximum { break }
        lines += 1
        lineStart = index + 1
      }
      index += 1
    }
    return (lineStart, lines)
  }

  /// Where lines begin in `bytes`, a part of an input scanned backwards (a `tail -n N` that
  /// reads a file's last blocks, the last first): after each LF, from the last one back, at
  /// most `count` of them. The LF that is the input's very last byte (`endsInput`: `bytes` ends
  /// where the input does) ends the last line and begins none; a last line without an LF
  /// begins after the LF before it, as any line.
  ///
  /// Returns how many line starts were found and the index of the earliest of them in `bytes`
  /// (nil when none): when `found` is `count`, the last `count` lines of the input begin at
  /// `earliest`; otherwise scan the part before `bytes` for the `count - found` left, and
  /// when there is none, they begin at the input's start. By the splitter's own rule (lines
  /// end at LF), the lines counted are the lines the splitter gives, but that a line longer
  /// than ``maximumLineLength`` counts once here and comes out of the splitter in pieces.
  ///
  /// ```swift
  /// let text = Array("one\ntwo\nthree\n".utf8)
  /// let starts = text.withUnsafeBytes {
  ///   LineSplitter.lineStarts(backwardsIn: $0, upTo: 2, endsInput: true)
  /// }
  /// print(starts.found, starts.earliest ?? -1)  // 2 4
  /// ```
  public static func lineStarts(
    backwardsIn bytes: UnsafeRawBufferPointer, upTo count: Int, endsInput: Bool
  ) -> (found: Int, earliest: Int?) {
    var found = 0
    var earliest: Int?
    var index = bytes.count - 1
    if endsInput && bytes.last == 0x0A { index -= 1 }
    while found < count && index >= 0 {
      if bytes[index] == 0x0A {
        found += 1
        earliest = index + 1
      }
      index -= 1
    }
    return (found, earliest)
  }

  /// Passes the unfinished line to `body` as the last line, at the end of the input: its
  /// bytes, without a final CR, ending ``End/endOfInput`` (in pieces, as any line, when it is
  /// longer than the maximum). Nothing when no byte is waiting. The splitter is then empty,
  /// ready for more input.
  public mutating func flush(_ body: (Line) -> Void) {
    guard !pending.isEmpty else { return }
    pending.withUnsafeBytes { bytes in
      let hasReturn = bytes.last == 0x0D
      let text = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - (hasReturn ? 1 : 0))])
      deliverPieces(of: text, endingBytes: hasReturn ? 1 : 0, end: .endOfInput, body)
    }
    pending.removeAll(keepingCapacity: true)
  }

  /// Drops the unfinished line (when the input starts over, after a file was truncated).
  public mutating func reset() {
    pending.removeAll()
  }

  /// Delivers one line whose LF was found: `bytes` is the line without its LF.
  private func deliverLine(_ bytes: UnsafeRawBufferPointer, _ body: (Line) -> Void) {
    let hasReturn = bytes.last == 0x0D
    let text = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - (hasReturn ? 1 : 0))])
    deliverPieces(
      of: text, endingBytes: hasReturn ? 2 : 1,
      end: hasReturn ? .carriageReturnLineFeed : .lineFeed, body)
  }

  /// Delivers `text`, the whole text of a line, in pieces of at most the maximum; the last
  /// piece ends with `end` and counts `endingBytes` more.
  private func deliverPieces(
    of text: UnsafeRawBufferPointer, endingBytes: Int, end: End, _ body: (Line) -> Void
  ) {
    var rest = text
    while rest.count > maximumLineLength {
      let cut = Self.cutLength(of: rest, maximum: maximumLineLength)
      // One character longer than the maximum, and the end of the line: the last piece.
      if cut == rest.count { break }
      body(Line(text: Self.text(rest[..<cut]), byteCount: cut, end: .cut))
      rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
    }
    body(Line(text: Self.text(rest[...]), byteCount: rest.count + endingBytes, end: end))
  }

  /// Delivers the pieces of the unfinished line that no later byte can change, keeping the
  /// rest. The first piece's cut depends on at most the bytes up to the maximum plus 3 (the
  /// rest of a character that starts before the maximum), and one more byte might be a CR
  /// that an LF will turn into a line ending: with more than the maximum plus 4 bytes
  /// waiting, the cut is the one the whole line will get.
  private mutating func cutPending(_ body: (Line) -> Void) {
    guard pending.count > maximumLineLength + 4 else { return }
    let maximum = maximumLineLength
    let consumed = pending.withUnsafeBytes { bytes in
      var start = 0
      while bytes.count - start > maximum + 4 {
        let piece = UnsafeRawBufferPointer(rebasing: bytes[start...])
        let cut = Self.cutLength(of: piece, maximum: maximum)
        body(Line(text: Self.text(piece[..<cut]), byteCount: cut, end: .cut))
        start += cut
      }
      return start
    }
    pending.removeFirst(consumed)
  }

  /// Where to cut `bytes`, which are longer than `maximum`: after the last whole character
  /// (valid scalar, or maximal invalid sequence) that fits in `maximum` bytes, or after the
  /// first one when even it does not fit.
  private static func cutLength(of bytes: UnsafeRawBufferPointer, maximum: Int) -> Int {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var length = 0
    while true {
      let next: Int
      switch parser.parseScalar(from: &iterator) {
      case .valid(let scalar): next = scalar.count
      case .error(let errorLength): next = errorLength
      case .emptyInput: return length
      }
      if length + next > maximum { return length == 0 ? next : length }
      length += next
    }
  }

  /// The text of `bytes`, with U+FFFD for what is not UTF-8.
  private static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
    UnsafeRawBufferPointer(rebasing: bytes).withMemoryRebound(to: UInt8.self) {
      String(decoding: $0, as: UTF8.self)
    }
  }
}
