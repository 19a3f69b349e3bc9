import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// When a regular file's lines are delivered, as `FileDescriptors` promises it. The first pass:
/// read and handed over inside `subscribe`, on the stream's actor, before the subscription is
/// returned, whatever that actor (the main actor, on the main thread; another actor), and on the
/// subscribing thread for `.sendingThread`. A refill's send (a `SendableEmitter`'s, as a
/// trigger): inside `send` when it is called on the subscriber's actor, in a turn of that actor
/// when it is called on another thread.
///
/// Serialized, as `FileDescriptorsTests` (libdispatch's epoll loop, swift-corelibs-libdispatch#949).
@MainActor @Suite(.serialized, .checksLiveResources) struct FileDescriptorsInlineDeliveryTests {
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
    let subscription = try FileDescriptors.lines(of: file.open(), ownership: .streamCloses)
      .subscribe(on: .sendingThread) { line in
        onSubscribingThread.record(pthread_equal(pthread_self(), subscribing) != 0)
        lines.record(line)
      }
    #expect(lines.values == ["one", "two"])
    #expect(onSubscribingThread.values == [true, true])
    subscription.unsubscribe()
  }
}

extension FileDescriptorsInlineDeliveryTests {
  @Test func aRefillSentOnTheMainActorDeliversInsideSend() throws {
    let file = WrittenFile("one\n")
    defer { file.remove() }
    let (lines, refills, subscription) = try Self.followedWithRefill(file)
    refills.send()
    #expect(lines.values == ["one", "two"])
    subscription.unsubscribe()
  }

  @Test func aRefillSentOnAnotherActorDeliversInsideSend() async throws {
    let file = WrittenFile("one\n")
    defer { file.remove() }
    #expect(try await Elsewhere().linesInsideRefill(of: file) == ["one", "two"])
  }

  @Test func aRefillSentOnAnotherThreadDeliversInATurnOfTheActor() async throws {
    let file = WrittenFile("one\n")
    defer { file.remove() }
    let (lines, refills, subscription) = try Self.followedWithRefill(file)
    // The main thread waits for the send meanwhile, so a turn of the main actor cannot run
    // before the sending thread has looked. (Not `DispatchQueue.global().sync`, which runs its
    // block on the calling thread: the main thread, which runs the main actor.)
    let seenInsideSend = Recorder<[String]>()
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      refills.send()
      seenInsideSend.record(lines.values)
      sent.signal()
    }
    sent.wait()
    #expect(seenInsideSend.values == [["one"]])
    #expect(await lines.arrival(ofCount: 2))
    #expect(lines.values == ["one", "two"])
    subscription.unsubscribe()
  }
}

extension FileDescriptorsInlineDeliveryTests {
  /// The lines of `file`, followed on the main actor with an emitter's trigger, its first
  /// line received; then "two" is appended, not yet read.
  static func followedWithRefill(
    _ file: WrittenFile
  ) throws -> (Recorder<String>, SendableEmitter<Void>, SendableSubscription) {
    let lines = Recorder<String>()
    let refills = SendableEmitter<Void>()
    let subscription = try FileDescriptors.lines(
      of: file.open(), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(next: lines.record)
    file.append("two\n")
    return (lines, refills, subscription)
  }
}

/// An actor of the tests' own, which subscribes and reads what arrived before `subscribe`
/// returned.
private actor Elsewhere {
  func linesInsideRefill(of file: WrittenFile) throws -> [String] {
    let lines = Recorder<String>()
    let refills = SendableEmitter<Void>()
    let subscription = try FileDescriptors.lines(
      of: file.open(), ownership: .streamCloses, refill: refills.trigger
    ).subscribe(next: { line in
      self.assertIsolated()
      lines.record(line)
    })
    file.append("two\n")
    refills.send()
    let seen = lines.values
    subscription.unsubscribe()
    return seen
  }

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

/// A regular file in a temporary directory of its own.
struct WrittenFile: Sendable {
  let directory = TemporaryDirectory()

  init(_ text: String) {
    ProducersTests.append(text, to: directory.file("lines"))
  }

  func open() -> Int32 { Glibc.open(directory.file("lines"), O_RDONLY) }

  func append(_ text: String) { ProducersTests.append(text, to: directory.file("lines")) }

  func remove() { directory.remove() }
}
