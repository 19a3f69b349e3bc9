// A libFuzzer target for LineSplitter, the line decoder of the Producers module. It is
// compiled together with the package's own source file, not a copy of it:
//
//   swiftc -sanitize=fuzzer,address -parse-as-library \
//     Fuzz/LineSplitterFuzz.swift Sources/Producers/FileDescriptors/LineSplitter.swift
//
// `Fuzz/run` does that and runs it; see Fuzz/README.md.
//
// Each input is a header and the bytes to split. The header picks the maximum line length and
// seeds the sizes of the chunks the bytes are fed in. Every input must give exactly the lines
// of `referenceLines`, a plain split of the whole input written independently of the splitter
// (its own UTF-8 table, no streaming), and must leave valid UTF-8 unaltered. A difference stops
// the fuzzer with a description, and libFuzzer saves the input.

/// The header: maximum line length (1 byte) and chunking seed (3 bytes).
private let headerLength = 4

/// libFuzzer's entry point: checks the splitter on one input; stops the process on a difference.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= headerLength else { return 0 }
  let header = UnsafeBufferPointer(start: data, count: headerLength)
  let input = Array(UnsafeBufferPointer(start: data + headerLength, count: size - headerLength))
  // Mostly small maxima, where cuts are frequent; sometimes one that no line reaches.
  let maximum = header[0] >= 0xF0 ? 1 << 20 : 1 + Int(header[0]) % 24
  var random = SplitMix(seed: UInt64(header[1]) | UInt64(header[2]) << 8 | UInt64(header[3]) << 16)

  // The maximum is at least 1, so the splitter is always made.
  guard var splitter = try? LineSplitter(maximumLineLength: maximum) else { return 0 }
  var lines: [LineSplitter.Line] = []
  var start = 0
  while start < input.count {
    // Chunks of 1 to 16 bytes mostly, sometimes up to 300, cut anywhere.
    let limit = random.next() % 8 == 0 ? 300 : 16
    let count = min(input.count - start, 1 + Int(random.next() % UInt64(limit)))
    input[start..<start + count].withUnsafeBytes { chunk in
      splitter.split(chunk) { lines.append($0) }
    }
    start += count
    check(
      splitter.unfinishedByteCount <= maximum + 4,
      "\(splitter.unfinishedByteCount) bytes wait with a maximum of \(maximum)", input, maximum)
  }
  splitter.flush { lines.append($0) }
  check(splitter.unfinishedByteCount == 0, "bytes left after flush", input, maximum)

  let expected = referenceLines(of: input, maximum: maximum)
  check(
    lines == expected, "chunked lines differ from the reference:\n\(lines)\n\(expected)",
    input, maximum)
  check(
    lines.reduce(0) { $0 + $1.byteCount } == input.count, "bytes unaccounted for", input,
    maximum)
  // The fast path for plain lines gives the same lines, cut into other chunks.
  var plainSplitter = splitter
  plainSplitter.reset()
  var plainLines: [LineSplitter.Line] = []
  start = 0
  while start < input.count {
    let limit = random.next() % 4 == 0 ? 300 : 40
    let count = min(input.count - start, 1 + Int(random.next() % UInt64(limit)))
    input[start..<start + count].withUnsafeBytes { chunk in
      plainSplitter.split(
        chunk,
        plainLines: { run, lineCount in
          var found = 0
          var lineStart = 0
          for index in run.indices where run[index] == 0x0A {
            let text = String(decoding: run[lineStart..<index], as: UTF8.self)
            plainLines.append(
              LineSplitter.Line(text: text, byteCount: index + 1 - lineStart, end: .lineFeed))
            lineStart = index + 1
            found += 1
          }
          check(
            found == lineCount && lineStart == run.count, "a plain run miscounted", input, maximum)
        }
      ) { plainLines.append($0) }
    }
    start += count
  }
  plainSplitter.flush { plainLines.append($0) }
  check(
    plainLines == expected,
    "plain-path lines differ from the reference:\n\(plainLines)\n\(expected)",
    input, maximum)
  // Valid UTF-8 comes back byte for byte: the texts with their line endings are the input.
  if String(validating: input, as: UTF8.self) != nil {
    var rebuilt: [UInt8] = []
    for line in lines {
      rebuilt += Array(line.text.utf8)
      let ending = line.byteCount - line.text.utf8.count
      rebuilt += ending == 2 ? [0x0D, 0x0A] : ending == 1 && line.end == .lineFeed ? [0x0A] : []
      if line.end == .endOfInput && ending == 1 { rebuilt += [0x0D] }
    }
    check(rebuilt == input, "valid UTF-8 was altered", input, maximum)
  }
  return 0
}

/// Stops the fuzzer, with what went wrong, when `condition` is false.
private func check(
  _ condition: Bool, _ message: @autoclosure () -> String, _ input: [UInt8], _ maximum: Int
) {
  if !condition {
    fatalError("LineSplitter: \(message())\nmaximum \(maximum), input \(input)")
  }
}

/// The lines of the whole `input`, split the plain way: at each LF, a CR before it dropped,
/// the rest after the last LF as a last line with a final CR dropped, and each line's text cut
/// greedily into pieces of at most `maximum` bytes between characters.
private func referenceLines(of input: [UInt8], maximum: Int) -> [LineSplitter.Line] {
  var result: [LineSplitter.Line] = []
  let parts = input.split(separator: 0x0A, omittingEmptySubsequences: false)
  for (index, part) in parts.enumerated() {
    let isLast = index == parts.count - 1
    if isLast && part.isEmpty { break }
    var text = Array(part)
    var endingBytes = isLast ? 0 : 1
    var end: LineSplitter.End = isLast ? .endOfInput : .lineFeed
    if text.last == 0x0D {
      text.removeLast()
      endingBytes += 1
      if !isLast { end = .carriageReturnLineFeed }
    }
    // Cut between characters: each piece takes whole characters while they fit, and at least
    // one.
    var position = 0
    var pieceStart = 0
    while true {
      let length = position < text.count ? characterLength(text, at: position) : 0
      let fits = position + length - pieceStart <= maximum
      if length == 0 || (!fits && position > pieceStart) {
        let isEnd = position == text.count
        let piece = text[pieceStart..<position]
        if isEnd {
          result.append(
            .init(
              text: String(decoding: piece, as: UTF8.self), byteCount: piece.count + endingBytes,
              end: end))
          break
        }
        result.append(
          .init(text: String(decoding: piece, as: UTF8.self), byteCount: piece.count, end: .cut))
        pieceStart = position
        continue
      }
      position += length
    }
  }
  return result
}

/// The length of the character at `index`: a well-formed UTF-8 sequence (Unicode's table 3-7),
/// or the maximal start of one that is cut short (one U+FFFD), or a single invalid byte.
private func characterLength(_ bytes: [UInt8], at index: Int) -> Int {
  let lead = bytes[index]
  let length: Int
  let second: ClosedRange<UInt8>
  switch lead {
  case 0x00...0x7F: return 1
  case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
  case 0xE0: (length, second) = (3, 0xA0...0xBF)
  case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
  case 0xED: (length, second) = (3, 0x80...0x9F)
  case 0xF0: (length, second) = (4, 0x90...0xBF)
  case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
  case 0xF4: (length, second) = (4, 0x80...0x8F)
  default: return 1
  }
  guard index + 1 < bytes.count, second.contains(bytes[index + 1]) else { return 1 }
  for offset in 2..<length {
    guard index + offset < bytes.count, (0x80...0xBF).contains(bytes[index + offset]) else {
      return offset
    }
  }
  return length
}

/// A small seeded generator (SplitMix64), for the chunk sizes.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
