import Foundation
import IndefiniteObservable
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What the lines stream makes of long lines: cut only between characters, with CRLF read like
/// LF wherever the cut falls. Run through a pipe, as a user's program would.
@Suite(.checksLiveResources) struct LineIntegrityTests {
  /// The lines a lines stream with `maximum` delivers for `writes`, sent one write at a time
  /// into a pipe that is then closed.
  func lines(of writes: [[UInt8]], maximum: Int) throws -> [String] {
    let pipe = Pipe()
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    let subscription = try FileDescriptors.lines(
      of: pipe.read, ownership: .streamCloses, maximumLineLength: maximum
    ).subscribe(next: lines.record, status: statuses.record)
    for bytes in writes {
      _ = bytes.withUnsafeBytes { write(pipe.write, $0.baseAddress, $0.count) }
      // Let the reader take each write as its own chunk.
      Thread.sleep(forTimeInterval: 0.01)
    }
    close(pipe.write)
    #expect(statuses.wait(forCount: 1))
    subscription.unsubscribe()
    return lines.values
  }

  func lines(of text: String, maximum: Int) throws -> [String] {
    try lines(of: [Array(text.utf8)], maximum: maximum)
  }

  @Test func aLongLineIsCutOnlyBetweenCharacters() throws {
    // Two bytes each: seven bytes hold three and a half.
    #expect(try lines(of: "éééééééééé\n", maximum: 7) == ["ééé", "ééé", "ééé", "é"])
    // Three and four bytes, mixed with ASCII.
    #expect(try lines(of: "a€b😀c€\n", maximum: 5) == ["a€b", "😀c", "€"])
  }

  @Test func aCutLineJoinsBackIntoTheSameText() throws {
    let text = String(repeating: "Grüße, 世界! 😀 ", count: 40)
    for maximum in [4, 5, 6, 7, 13, 64] {
      let pieces = try lines(of: text + "\n", maximum: maximum)
      #expect(pieces.joined() == text, "maximum \(maximum)")
      #expect(pieces.allSatisfy { $0.utf8.count <= maximum }, "maximum \(maximum)")
      #expect(!pieces.joined().contains("\u{FFFD}"), "maximum \(maximum)")
    }
  }

  @Test func crlfReadsLikeLFWhereverTheCutFalls() throws {
    #expect(try lines(of: "abc\r\n", maximum: 3) == ["abc"])
    #expect(try lines(of: "abc\r\nde\r\n", maximum: 3) == ["abc", "de"])
    #expect(try lines(of: "abcd\r\n", maximum: 3) == ["abc", "d"])
    #expect(try lines(of: "ab\r\n", maximum: 2) == ["ab"])
    // The CR at the cut and its LF in separate reads.
    #expect(try lines(of: [Array("abc\r".utf8), Array("\nx\n".utf8)], maximum: 3) == ["abc", "x"])
    // A CR not followed by LF is part of the line.
    #expect(try lines(of: "abc\rd\n", maximum: 3) == ["abc", "\rd"])
  }

  @Test func aCharacterLongerThanTheMaximumIsDeliveredWhole() throws {
    #expect(try lines(of: "é\n", maximum: 1) == ["é"])
    #expect(try lines(of: "aéb\n", maximum: 1) == ["a", "é", "b"])
    #expect(try lines(of: "😀😀\n", maximum: 3) == ["😀", "😀"])
  }

  @Test func aCharacterSplitAcrossReadsIsNotBroken() throws {
    let euro = Array("€".utf8)
    let writes = [Array("ab".utf8) + euro.prefix(1), Array(euro.dropFirst()) + Array("cd\n".utf8)]
    #expect(try lines(of: writes, maximum: 3) == ["ab", "€", "cd"])
  }
}
