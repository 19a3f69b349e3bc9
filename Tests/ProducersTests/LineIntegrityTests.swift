import Foundation
import IndefiniteObservable
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What the lines stream makes of long lines: cut only between characters, with CRLF read like
/// LF wherever the cut falls. Read from a regular file, as a user's program would; the cases
/// that need the bytes to arrive in several reads are given to the stream's `LineSplitter`
/// chunk by chunk. (A pipe would do as well, but many pipe subscriptions made and ended on
/// parallel test threads crash libdispatch's epoll loop on Linux, with or without this suite.)
@MainActor @Suite(.checksLiveResources) struct LineIntegrityTests {
  /// The lines a lines stream with `maximum` delivers for a file holding `writes`, joined;
  /// and, when there are several writes, checks that a splitter given them one by one
  /// delivers the same.
  func lines(of writes: [[UInt8]], maximum: Int) async throws -> [String] {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("text")
    let fd = open(path, O_RDWR | O_CREAT, 0o644)
    let bytes = writes.flatMap { $0 }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    lseek(fd, 0, SEEK_SET)
    let lines = Recorder<String>()
    let statuses = Recorder<DescriptorStatus>()
    // Without `refill` the file is read once, to its end, where an unfinished line is flushed.
    let subscription = try FileDescriptors.lines(
      of: fd, ownership: .streamCloses, maximumLineLength: maximum
    ).subscribe(next: lines.record, status: statuses.record)
    #expect(await statuses.arrival(ofCount: 1))
    subscription.unsubscribe()
    var splitter = try LineSplitter(maximumLineLength: maximum)
    var chunked: [String] = []
    for write in writes { splitter.split(write) { chunked.append($0.text) } }
    splitter.flush { chunked.append($0.text) }
    #expect(chunked == lines.values, "in \(writes.count) chunks")
    return lines.values
  }

  func lines(of text: String, maximum: Int) async throws -> [String] {
    try await lines(of: [Array(text.utf8)], maximum: maximum)
  }

  @Test func aLongLineIsCutOnlyBetweenCharacters() async throws {
    // Two bytes each: seven bytes hold three and a half.
    #expect(try await lines(of: "éééééééééé\n", maximum: 7) == ["ééé", "ééé", "ééé", "é"])
    // Three and four bytes, mixed with ASCII.
    #expect(try await lines(of: "a€b😀c€\n", maximum: 5) == ["a€b", "😀c", "€"])
  }

  @Test func aCutLineJoinsBackIntoTheSameText() async throws {
    let text = String(repeating: "Grüße, 世界! 😀 ", count: 40)
    for maximum in [4, 5, 6, 7, 13, 64] {
      let pieces = try await lines(of: text + "\n", maximum: maximum)
      #expect(pieces.joined() == text, "maximum \(maximum)")
      #expect(pieces.allSatisfy { $0.utf8.count <= maximum }, "maximum \(maximum)")
      #expect(!pieces.joined().contains("\u{FFFD}"), "maximum \(maximum)")
    }
  }

  @Test func crlfReadsLikeLFWhereverTheCutFalls() async throws {
    #expect(try await lines(of: "abc\r\n", maximum: 3) == ["abc"])
    #expect(try await lines(of: "abc\r\nde\r\n", maximum: 3) == ["abc", "de"])
    #expect(try await lines(of: "abcd\r\n", maximum: 3) == ["abc", "d"])
    #expect(try await lines(of: "ab\r\n", maximum: 2) == ["ab"])
    // The CR at the cut and its LF in separate reads.
    #expect(
      try await lines(of: [Array("abc\r".utf8), Array("\nx\n".utf8)], maximum: 3) == ["abc", "x"])
    // A CR not followed by LF is part of the line.
    #expect(try await lines(of: "abc\rd\n", maximum: 3) == ["abc", "\rd"])
  }

  @Test func aCharacterLongerThanTheMaximumIsDeliveredWhole() async throws {
    #expect(try await lines(of: "é\n", maximum: 1) == ["é"])
    #expect(try await lines(of: "aéb\n", maximum: 1) == ["a", "é", "b"])
    #expect(try await lines(of: "😀😀\n", maximum: 3) == ["😀", "😀"])
  }

  @Test func aCharacterSplitAcrossReadsIsNotBroken() async throws {
    let euro = Array("€".utf8)
    let writes = [Array("ab".utf8) + euro.prefix(1), Array(euro.dropFirst()) + Array("cd\n".utf8)]
    #expect(try await lines(of: writes, maximum: 3) == ["ab", "€", "cd"])
  }
}
