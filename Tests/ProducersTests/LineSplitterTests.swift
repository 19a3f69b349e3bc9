import Producers
import TestSupport
import Testing

/// The public line splitter on its own: what each line reports besides its text. Its rules
/// (cuts, CRLF, any chunking) are checked through the lines stream by `LineIntegrityTests`
/// and against a plain reference split by the fuzz target in `Fuzz/`.
@Suite(.checksLiveResources) struct LineSplitterTests {
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
}
