import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// When the first pass of a regular file is delivered, as `FileDescriptors` promises it: read
/// and handed over inside `subscribe`, on the stream's actor, before the subscription is
/// returned, whatever that actor (the main actor, on the main thread; another actor), and on
/// the subscribing thread for `.sendingThread`.
///
/// Serialized, as `FileDescriptorsTests` (libdispatch's epoll loop, swift-corelibs-libdispatch#949).
@MainActor @Suite(.serialized, .checksLiveResources) struct FileDescriptorsFirstPassTests {
  @Test func theFirstPassIsDeliveredInsideSubscribeOnTheMainActor() throws {
    let file = WrittenFile("one\ntwo\n")
    defer { file.remove() }
    let lines = Recorder<String>()
    let subscription = try FileDescriptors.lines(of: file.open(), ownership: .streamCloses)
      .subscribe(next: { line in
        MainActor.assertIsolated()
        lines.record(line)
      })
    #expect(lines.values == ["one", "two"])
    subscription.unsubscribe()
  }

  @Test func theFirstPassIsDeliveredInsideSubscribeOnAnotherActor() async throws {
    let file = WrittenFile("one\ntwo\n")
    defer { file.remove() }
    #expect(try await Elsewhere().linesInsideSubscribe(of: file.open()) == ["one", "two"])
  }

  @Test func theFirstPassIsDeliveredInsideSubscribeOnTheSendingThread() throws {
    let file = WrittenFile("one\ntwo\n")
    defer { file.remove() }
    let lines = Recorder<String>()
    let subscribing = pthread_self()
    let onSubscribingThread = Recorder<Bool>()
    let subscription = try FileDescriptors.lines(
      of: file.open(), ownership: .streamCloses, on: .sendingThread
    ) { line in
      onSubscribingThread.record(pthread_equal(pthread_self(), subscribing) != 0)
      lines.record(line)
    }
    #expect(lines.values == ["one", "two"])
    #expect(onSubscribingThread.values == [true, true])
    subscription.unsubscribe()
  }
}

/// An actor of the tests' own, which subscribes and reads what arrived before `subscribe`
/// returned.
private actor Elsewhere {
  func linesInsideSubscribe(of fd: Int32) throws -> [String] {
    let lines = Recorder<String>()
    let subscription = try FileDescriptors.lines(of: fd, ownership: .streamCloses)
      .subscribe(next: { line in
        self.assertIsolated()
        lines.record(line)
      })
    let seen = lines.values
    subscription.unsubscribe()
    return seen
  }
}

/// A regular file in a temporary directory of its own, written once.
private struct WrittenFile {
  let directory = TemporaryDirectory()

  init(_ text: String) {
    append(text, to: directory.file("lines"))
  }

  func open() -> Int32 { Glibc.open(directory.file("lines"), O_RDONLY) }

  func remove() { directory.remove() }
}
