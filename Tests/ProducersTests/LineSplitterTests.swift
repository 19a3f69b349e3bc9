import Producers
import TestSupport
import Testing

/// The public line splitter on its own: what each line reports besides its text. Its rules
/// (cuts, CRLF, any chunking) are checked through the lines stream by `LineIntegrityTests`
/// and against a plain reference split by the fuzz target in `Fuzz/`.
@Suite(.checksLiveResources) struct LineSplitterTests {
  @Test func aLineFeedIsFoundAtEveryPlaceOfAWordAmongBytesOfEveryValue() {
    // The search reads eight bytes at a time: a line feed at each place of a word, after
    // bytes of every value but CR (multi-byte text, bytes that are not UTF-8), in every chunk.
    var generator = SeededGenerator(seed: 49)
    let fillers: [UInt8] = [0x61, 0xC3, 0xA9, 0x8A, 0x0B, 0x09, 0xFF, 0x80, 0x00, 0x7F]
    for _ in 0..<2_000 {
      let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
        Int.random(in: 0..<6, using: &generator) == 0
          ? UInt8(0x0A) : fillers.randomElement(using: &generator)!
      }
      var splitter = LineSplitter()
      var lines: [LineSplitter.Line] = []
      splitter.split(bytes) { lines.append($0) }
      let expected = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
      #expect(lines.map(\.text) == expected.map { String(decoding: $0, as: UTF8.self) })
      #expect(lines.map(\.byteCount) == expected.map { $0.count + 1 })
    }
  }

  @Test func eachLineSaysHowManyBytesItTookAndHowItEnded() throws {
    var splitter = try LineSplitter(maximumLineLength: 4)
    var lines: [LineSplitter.Line] = []
    splitter.split(Array("one\r\ntw".utf8)) { lines.append($0) }
    #expect(splitter.unfinishedByteCount == 2)
    splitter.split(Array("o\nabcdef\nlast\r".utf8)) { lines.append($0) }
    #expect(splitter.unfinishedByteCount == 5)
    splitter.flush { lines.append($0) }
    #expect(splitter.unfinishedByteCount == 0)
    #expect(
      lines == [
        .init(text: "one", byteCount: 5, end: .carriageReturnLineFeed),
        .init(text: "two", byteCount: 4, end: .lineFeed),
        .init(text: "abcd", byteCount: 4, end: .cut),
        .init(text: "ef", byteCount: 3, end: .lineFeed),
        .init(text: "last", byteCount: 5, end: .endOfInput),
      ])
  }

  @Test func theDocumentationExamplePrintsWhatItSays() {
    var splitter = LineSplitter()
    var lines: [String] = []
    splitter.split(Array("one\r\ntw".utf8)) { lines.append($0.text) }
    splitter.split(Array("o\nthree".utf8)) { lines.append($0.text) }
    #expect(lines == ["one", "two"])
    #expect(splitter.unfinishedByteCount == 5)
  }

  @Test func flushDeliversAnUnfinishedLongLineInPiecesAndResetDropsIt() throws {
    var splitter = try LineSplitter(maximumLineLength: 2)
    var lines: [String] = []
    splitter.split(Array("abcde".utf8)) { lines.append($0.text) }
    splitter.flush { lines.append($0.text) }
    #expect(lines == ["ab", "cd", "e"])
    splitter.split(Array("xy".utf8)) { lines.append($0.text) }
    splitter.reset()
    splitter.flush { lines.append($0.text) }
    #expect(lines == ["ab", "cd", "e"])
  }

  @Test(arguments: [0, -5, Int.min])
  func aMaximumBelowOneIsRefused(maximum: Int) {
    #expect(throws: LineSplitter.MaximumNotPositive(maximumLineLength: maximum)) {
      try LineSplitter(maximumLineLength: maximum)
    }
  }

  @Test func theDefaultMaximumIsAMebibyte() {
    #expect(LineSplitter().maximumLineLength == 1 << 20)
  }

  @Test func thePlainLinesExamplePrintsWhatItSays() {
    var splitter = LineSplitter()
    var out: [String] = []
    Array("one\ntwo\ncafé\nfour\nfi".utf8).withUnsafeBytes { bytes in
      splitter.split(
        bytes,
        plainLines: { run, count in
          out.append("\(count) plain: \(String(decoding: run, as: UTF8.self))")
        }
      ) { line in out.append(line.text) }
    }
    #expect(out == ["2 plain: one\ntwo\n", "café", "1 plain: four\n"])
    #expect(splitter.unfinishedByteCount == 2)
  }

  /// The fast path for plain lines and the splitter's way give the same lines and the same byte
  /// counts, for any input cut into any chunks: a test that fails when the two drift apart.
  @Test(arguments: 0..<200)
  func plainLinesAreTheLinesThatSplitGives(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed))
    let alphabet: [UInt8] = Array("ab \n\n\n\r".utf8) + [0xC3, 0xA9, 0xFF, 0x80]
    let asciiOnly = seed.isMultiple(of: 2)  // half the inputs take the fast path throughout
    let length = Int.random(in: 0..<300, using: &random)
    let input: [UInt8] = (0..<length).map { _ in
      asciiOnly
        ? Array("abc d\n".utf8).randomElement(using: &random)!
        : alphabet.randomElement(using: &random)!
    }
    let maximum = Int.random(in: 1..<12, using: &random)

    var reference = try LineSplitter(maximumLineLength: maximum)
    var expected: [String] = []
    var expectedBytes = 0
    reference.split(input) { line in
      expected.append(line.text)
      expectedBytes += line.byteCount
    }

    var splitter = try LineSplitter(maximumLineLength: maximum)
    var lines: [String] = []
    var bytes = 0
    var plainRuns = 0
    var start = 0
    while start < input.count {
      let end = min(input.count, start + Int.random(in: 1...40, using: &random))
      splitter.split(
        Array(input[start..<end]),
        plainLines: { run, count in
          let text = String(decoding: run, as: UTF8.self)
          #expect(text.hasSuffix("\n"))
          let runLines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
          #expect(runLines.count == count)
          lines += runLines.map(String.init)
          bytes += run.count
          plainRuns += 1
        }
      ) { line in
        lines.append(line.text)
        bytes += line.byteCount
      }
      start = end
    }
    #expect(lines == expected)
    #expect(bytes == expectedBytes)
    #expect(splitter.unfinishedByteCount == reference.unfinishedByteCount)
    if asciiOnly && maximum >= 5 && input.contains(0x0A) { #expect(plainRuns > 0) }
  }

  @Test func theLineStartsExamplePrintsWhatItSays() {
    let text = Array("one\ntwo\nthree\n".utf8)
    let starts = text.withUnsafeBytes {
      LineSplitter.lineStarts(backwardsIn: $0, upTo: 2, endsInput: true)
    }
    #expect(starts.found == 2)
    #expect(starts.earliest == 4)
  }

  /// Scanning backwards in blocks of any size finds the last N lines where the lines that
  /// `split` gives (and `flush`, for a last line without LF) begin: a test that fails when the
  /// two rules of a line's end drift apart.
  @Test(arguments: 0..<200)
  func lineStartsFoundBackwardsAreWhereSplitLinesBegin(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed))
    let length = Int.random(in: 0..<200, using: &random)
    let input: [UInt8] = (0..<length).map { _ in
      (Array("ab\r\n\n".utf8) + [0xC3, 0xA9]).randomElement(using: &random)!
    }
    var splitter = LineSplitter()
    var starts: [Int] = []
    var offset = 0
    let record = { (line: LineSplitter.Line) in
      starts.append(offset)
      offset += line.byteCount
    }
    splitter.split(input, record)
    splitter.flush(record)
    for count in 1...4 {
      var end = input.count
      var left = count
      var found: Int?
      while end > 0 && found == nil {
        let start = max(0, end - Int.random(in: 1...16, using: &random))
        let part = input[start..<end].withUnsafeBytes {
          LineSplitter.lineStarts(backwardsIn: $0, upTo: left, endsInput: end == input.count)
        }
        left -= part.found
        if left == 0, let earliest = part.earliest { found = start + earliest }
        end = start
      }
      let expected = starts.count >= count ? starts[starts.count - count] : 0
      #expect((found ?? 0) == expected, "last \(count) lines of \(input)")
    }
  }
}
