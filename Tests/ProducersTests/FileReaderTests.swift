import Foundation
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The synchronous reader of a regular file, on its own: what it reads from its position, how
/// it says the file ended, stopped at its most bytes or was truncated, and that it leaves the
/// descriptor and its offset alone.
@MainActor @Suite(.checksLiveResources) struct FileReaderTests {
  /// Everything `reader` reads now, and what it said.
  private func readAll(
    _ reader: inout FileReader, upTo maximum: Int = .max
  ) -> (text: String, outcome: Result<FileReader.Outcome, Errno>) {
    var bytes: [UInt8] = []
    let outcome = reader.read(upTo: maximum) { bytes.append(contentsOf: $0) }
    return (String(decoding: bytes, as: UTF8.self), outcome)
  }

  @Test func readsWhatWasAppendedFromItsPositionAndSaysTheEnd() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("one\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var reader = FileReader(descriptor: fd)
    var found = readAll(&reader)
    #expect(found.text == "one\n")
    #expect(found.outcome == .success(.endOfFile))
    found = readAll(&reader)
    #expect(found.text == "")
    #expect(found.outcome == .success(.endOfFile))
    append("two\nthree\n", to: path)
    found = readAll(&reader)
    #expect(found.text == "two\nthree\n")
    #expect(reader.checkpoint.offset == 14)
    // The descriptor's own offset never moves.
    #expect(lseek(fd, 0, SEEK_CUR) == 0)
  }

  @Test func stopsAtItsMostBytesAndReadsOnFromThere() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    let text = String(repeating: "0123456789abcdef", count: 10_000)  // 160,000 bytes
    append(text, to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var reader = FileReader(descriptor: fd, at: FileCheckpoint())
    let first = readAll(&reader, upTo: 100_000)
    #expect(first.outcome == .success(.more))
    #expect(reader.checkpoint.offset == Int64(first.text.utf8.count))
    let rest = readAll(&reader)
    #expect(rest.outcome == .success(.endOfFile))
    #expect(first.text + rest.text == text)
  }

  @Test func aTruncatedOrRewrittenFileSaysSoAndIsReadAgainFromItsStart() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("old line one\nold line two\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var reader = FileReader(descriptor: fd, at: FileCheckpoint())
    _ = readAll(&reader)
    truncate(path, 0)
    append("short\n", to: path)
    var found = readAll(&reader)
    #expect(found.outcome == .success(.truncated(rewritten: false)))
    #expect(found.text == "")
    #expect(reader.checkpoint.offset == 0)
    found = readAll(&reader)
    #expect(found.text == "short\n")
    // Rewritten past the position: only the bytes before it tell.
    truncate(path, 0)
    append("a new, longer first line\n", to: path)
    found = readAll(&reader)
    #expect(found.outcome == .success(.truncated(rewritten: true)))
    #expect(readAll(&reader).text == "a new, longer first line\n")
  }

  @Test func aDescriptorThatCannotBeReadIsItsErrno() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("x\n", to: path)
    let fd = open(path, O_WRONLY)
    defer { close(fd) }
    var reader = FileReader(descriptor: fd, at: FileCheckpoint())
    #expect(readAll(&reader).outcome == .failure(Errno(EBADF)))
  }
}
