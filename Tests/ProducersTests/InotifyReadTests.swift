#if os(Linux)
  import Glibc
  @testable import Producers
  import Testing

  /// How the inotify instance's reads are cut into what the watches receive: a rename's two
  /// halves reach them together, wherever a read fell. The reads are of a pipe that the test
  /// writes inotify's events into, so the second half of a rename can be queued between two
  /// reads, as the system does when it is read in the middle of a `rename`.
  @Suite struct InotifyReadTests {
    private let movedFrom = event(mask: UInt32(IN_MOVED_FROM), cookie: 7, name: "app.log")
    private let movedTo = event(mask: UInt32(IN_MOVED_TO), cookie: 7, name: "app.log.1")
    private let modified = event(mask: UInt32(IN_MODIFY), cookie: 0, name: "")

    /// A read that took a rename's first half alone: the descriptor is read again, and the
    /// second half, queued meanwhile, is handed on with it. Before, the first half went alone,
    /// and a path watch said the file was renamed to an unknown place: `follow` lost a file
    /// that came and went (1 to 8 of 500, made 1 ms apart, while it was behind).
    @Test func aRenameThatAReadCutInTwoIsHandedOnWhole() {
      let pipe = nonBlockingPipe()
      defer { pipe.close() }
      pipe.send(movedFrom)
      var reads = 0
      var handedOn: [[UInt8]] = []
      ProcessChannel.drain(
        pipe.read,
        isCut: { read in
          reads += 1
          if reads == 1 { pipe.send(movedTo) }  // the system queues it meanwhile
          return InotifyEvents(raw: read).hasHalfOfARename
        },
        into: { handedOn.append(Array($0)) })
      #expect(handedOn == [movedFrom + movedTo])
    }

    /// A move to a directory not watched has no second half: after one more read, which finds
    /// nothing, the first half is handed on alone.
    @Test func aMoveOutOfTheWatchedDirectoryIsHandedOnAlone() {
      let pipe = nonBlockingPipe()
      defer { pipe.close() }
      pipe.send(movedFrom)
      var handedOn: [[UInt8]] = []
      ProcessChannel.drain(
        pipe.read, isCut: { InotifyEvents(raw: $0).hasHalfOfARename },
        into: { handedOn.append(Array($0)) })
      #expect(handedOn == [movedFrom])
    }

    @Test func aHalfOfARenameIsOneWithNoSecondHalfOfItsCookieAfterIt() {
      let otherCookie = event(mask: UInt32(IN_MOVED_TO), cookie: 8, name: "app.log.1")
      let cases: [([UInt8], Bool)] = [
        (movedFrom, true),
        (movedFrom + movedTo, false),
        (modified + movedFrom + modified + movedTo, false),
        (movedFrom + otherCookie, true),
        (movedTo + movedFrom, true),
        (movedTo, false),
        (modified, false),
        ([], false),
      ]
      for (bytes, isHalf) in cases {
        bytes.withUnsafeBytes { raw in
          #expect(InotifyEvents(raw: raw).hasHalfOfARename == isHalf)
        }
      }
    }
  }

  /// An inotify event of watch 1: its header, and its name padded with zeros to 16 bytes.
  private func event(mask: UInt32, cookie: UInt32, name: String) -> [UInt8] {
    var padded = name.isEmpty ? [] : Array(name.utf8) + [0]
    while padded.count % 16 != 0 { padded.append(0) }
    var bytes: [UInt8] = []
    for field in [1, mask, cookie, UInt32(padded.count)] {
      withUnsafeBytes(of: field) { bytes += $0 }
    }
    return bytes + padded
  }

  /// A pipe whose read end does not wait, as the inotify instance's.
  private func nonBlockingPipe() -> Pipe {
    let pipe = Pipe()
    _ = fcntl(pipe.read, F_SETFL, fcntl(pipe.read, F_GETFL) | O_NONBLOCK)
    return pipe
  }

  extension Pipe {
    fileprivate func close() {
      Glibc.close(read)
      Glibc.close(write)
    }
  }
#endif
