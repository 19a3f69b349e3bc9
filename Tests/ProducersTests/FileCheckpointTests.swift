import Foundation
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The read position with the bytes before it, on its own: how it moves, and what it says of
/// a file that grew, shrank or was rewritten.
@MainActor @Suite(.checksLiveResources) struct FileCheckpointTests {
  @Test func advancingKeepsTheLastFourKibibytesBeforeThePosition() async throws {
    var checkpoint = FileCheckpoint()
    checkpoint.advance(over: Array("one\ntwo\n".utf8))
    #expect(checkpoint.offset == 8)
    #expect(checkpoint.window == Array("one\ntwo\n".utf8))
    checkpoint.advance(over: [UInt8](repeating: 0x41, count: 5000))
    checkpoint.advance(over: Array("end".utf8))
    #expect(checkpoint.offset == 5011)
    #expect(checkpoint.window.count == FileCheckpoint.windowLimit)
    #expect(checkpoint.window.suffix(4) == [0x41] + Array("end".utf8))
  }

  /// The window kept with slack storage says what a plain "last 4 KiB of everything read"
  /// says, after any sequence of advances and rewinds: its bytes, fingerprint, equality and
  /// hash, and what a read of the same file checks against it.
  @Test func theWindowIsAlwaysTheLastBytesReadWhateverTheSizesOfTheAdvances() async throws {
    var random = SeededGenerator(seed: 7)
    var all: [UInt8] = []
    var checkpoint = FileCheckpoint()
    for step in 0..<1000 {
      let size =
        random.oneIn(50) ? random.below(9000) : random.oneIn(5) ? 0 : 1 + random.below(200)
      let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      all += bytes
      checkpoint.advance(over: bytes)
      if random.oneIn(40) {
        let back = random.below(300)
        all.removeLast(min(back, all.count))
        checkpoint = checkpoint.rewound(by: back)
        // What stays of the window after a rewind is what was before the new position.
        let expected = FileCheckpoint(
          offset: Int64(all.count), window: Array(all.suffix(FileCheckpoint.windowLimit)))
        #expect(checkpoint.offset == expected.offset)
        #expect(
          expected.window.suffix(checkpoint.window.count).elementsEqual(checkpoint.window),
          "step \(step)")
        checkpoint = expected
        continue
      }
      let expected = Array(all.suffix(FileCheckpoint.windowLimit))
      guard checkpoint.window == expected, checkpoint.offset == Int64(all.count) else {
        Issue.record("step \(step): the window or the offset differs")
        return
      }
      let plain = FileCheckpoint(offset: Int64(all.count), window: expected)
      #expect(checkpoint == plain && checkpoint.hashValue == plain.hashValue)
      #expect(checkpoint.fingerprint == plain.fingerprint)
    }
    let log = Log("")
    defer { log.remove() }
    let file = open(log.path, O_WRONLY | O_APPEND)
    #expect(all.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == all.count)
    close(file)
    #expect(checkpoint.verdict(for: log.fd) == .holds)
    #expect(FileCheckpoint.reading(log.fd, at: checkpoint.offset) == checkpoint)
  }

  @Test func rewindingDropsTheBytesAfterTheNewPosition() async throws {
    var checkpoint = FileCheckpoint()
    checkpoint.advance(over: Array("one\ntwo".utf8))
    let rewound = checkpoint.rewound(by: 3)
    #expect(rewound.offset == 4)
    #expect(rewound.window == Array("one\n".utf8))
    #expect(checkpoint.rewound(by: 100) == FileCheckpoint())
  }

  @Test func aFileThatGrewHoldsAndOneThatShrankOrChangedDoesNot() async throws {
    let log = Log("one\ntwo\n")
    defer { log.remove() }
    let (path, fd) = (log.path, log.fd)
    let checkpoint = try #require(FileCheckpoint.reading(fd, at: 8))
    #expect(checkpoint.window == Array("one\ntwo\n".utf8))
    append("three\n", to: path)
    #expect(checkpoint.verdict(for: fd) == .holds)
    truncate(path, 4)
    #expect(checkpoint.verdict(for: fd) == .shorter)
    #expect(FileCheckpoint.reading(fd, at: 8) == nil)
    truncate(path, 0)
    append("ONE\nTWO\nTHREE\n", to: path)
    #expect(checkpoint.verdict(for: fd) == .changed)
    // A position with no bytes to compare can only tell that the file is shorter.
    #expect(FileCheckpoint(offset: 8).verdict(for: fd) == .holds)
    #expect(FileCheckpoint(offset: 80).verdict(for: fd) == .shorter)
  }

  /// A check compares the last `comparedLimit` bytes of the window with the file, not all of
  /// it: a byte changed just inside that reach is seen, one just beyond it is not (the rest of
  /// the window is kept, for `fingerprint`); and a read reads that many bytes behind the
  /// position, not the whole window.
  @Test func aCheckComparesTheLastComparedLimitBytesOfTheWindow() async throws {
    let limit = FileCheckpoint.comparedLimit
    #expect(limit == 256 && limit < FileCheckpoint.windowLimit)
    let content = String(repeating: "0123456789abcde\n", count: 512)  // 8 KiB
    let log = Log(content)
    defer { log.remove() }
    let (path, fd) = (log.path, log.fd)
    let end = Int64(content.utf8.count)
    let checkpoint = try #require(FileCheckpoint.reading(fd, at: end))
    #expect(checkpoint.window.count == FileCheckpoint.windowLimit)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: limit + 16, alignment: 1)
    defer { buffer.deallocate() }
    func rewritten(
      changingByteAt distance: Int
    ) -> (FileCheckpoint.Verdict, FileCheckpoint.Verdict) {
      var bytes = Array(content.utf8)
      bytes[bytes.count - distance] = UInt8(ascii: "X")
      truncate(path, 0)
      append(String(decoding: bytes, as: UTF8.self) + "more\n", to: path)
      let read = try? checkpoint.readOn(fd, into: buffer).get()
      return (checkpoint.verdict(for: fd), read?.verdict ?? .shorter)
    }
    #expect(rewritten(changingByteAt: limit) == (.changed, .changed))
    #expect(rewritten(changingByteAt: limit + 1) == (.holds, .holds))
    // Room for the compared bytes and 16 more: a read past the position gets those 16.
    #expect(try checkpoint.readOn(fd, into: buffer).get().bytes.count == 5)
  }

  /// One `pread` reads the new bytes and checks the window: the same verdicts as
  /// `verdict(for:)`, and the bytes past the position only when the checkpoint holds.
  @Test func readingOnChecksTheWindowAndReadsWhatFollowsInOneRead() async throws {
    let log = Log("one\ntwo\n")
    defer { log.remove() }
    let (path, fd) = (log.path, log.fd)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
    defer { buffer.deallocate() }
    func readOn(_ checkpoint: FileCheckpoint, upTo count: Int = .max) -> (
      FileCheckpoint.Verdict, String
    )? {
      guard case .success(let found) = checkpoint.readOn(fd, into: buffer, upTo: count) else {
        return nil
      }
      return (found.verdict, String(decoding: found.bytes, as: UTF8.self))
    }
    #expect(readOn(FileCheckpoint())! == (.holds, "one\ntwo\n"))
    let checkpoint = try #require(FileCheckpoint.reading(fd, at: 8))
    #expect(readOn(checkpoint)! == (.holds, ""))
    append("three\n", to: path)
    #expect(readOn(checkpoint)! == (.holds, "three\n"))
    #expect(readOn(checkpoint, upTo: 2)! == (.holds, "th"))
    #expect(readOn(checkpoint, upTo: -5)! == (.holds, ""))
    // No room past the window's 8 bytes: the verdict only.
    let small = UnsafeMutableRawBufferPointer(rebasing: buffer[..<8])
    #expect(try checkpoint.readOn(fd, into: small).get().bytes.isEmpty)
    // A position with no bytes to compare reads one byte before it.
    #expect(readOn(FileCheckpoint(offset: 8))! == (.holds, "three\n"))
    #expect(readOn(FileCheckpoint(offset: 80))! == (.shorter, ""))
    truncate(path, 4)
    #expect(readOn(checkpoint)! == (.shorter, ""))
    truncate(path, 0)
    append("ONE\nTWO\nTHREE\n", to: path)
    #expect(readOn(checkpoint)! == (.changed, ""))
    // A descriptor that cannot be read gives its errno.
    let directoryFD = open(log.directory.path, O_RDONLY)
    defer { close(directoryFD) }
    #expect(throws: Errno.self) { try FileCheckpoint().readOn(directoryFD, into: buffer).get() }
  }

  @Test func aStoredFingerprintIsFoundAgainInTheSameFile() async throws {
    let log = Log("one\ntwo\n")
    defer { log.remove() }
    let (path, fd) = (log.path, log.fd)
    var checkpoint = FileCheckpoint()
    checkpoint.advance(over: Array("one\ntwo\n".utf8))
    let stored = (checkpoint.offset, checkpoint.window.count, checkpoint.fingerprint)
    append("three\n", to: path)
    let found = try #require(FileCheckpoint.reading(fd, at: stored.0, windowLength: stored.1))
    #expect(found.fingerprint == stored.2)
    truncate(path, 0)
    append("ONE\nTWO\n", to: path)
    let changed = try #require(FileCheckpoint.reading(fd, at: stored.0, windowLength: stored.1))
    #expect(changed.fingerprint != stored.2)
  }

  @Test func theDocumentationExamplePrintsWhatItSays() async throws {
    var checkpoint = FileCheckpoint()
    checkpoint.advance(over: Array("one\ntwo\n".utf8))
    #expect(checkpoint.offset == 8)
  }
}

/// A file holding `text`, in a directory of its own, open for reading.
private struct Log {
  let directory = TemporaryDirectory()
  let path: String
  let fd: Int32

  init(_ text: String) {
    path = directory.file("log")
    append(text, to: path)
    fd = open(path, O_RDONLY)
  }

  /// Closes the file and removes the directory.
  func remove() {
    close(fd)
    directory.remove()
  }
}
