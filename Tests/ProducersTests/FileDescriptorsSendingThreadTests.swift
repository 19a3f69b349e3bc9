import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `subscribe(on: .sendingThread, next:status:)` of the streams of `FileDescriptors`:
/// subscribed from code on no actor, the handlers run on the thread that read.
@Suite(.checksLiveResources) struct FileDescriptorsSendingThreadTests {
  /// What the handlers saw: each value and status in order, whether one ran on the main
  /// thread, and whether two calls ever overlapped.
  final class Seen<Value: Sendable & Equatable>: Sendable {
    let events = LockedState<[Event]>([])
    private let mainThreadCalls = Atomic(false)
    private let overlaps = Atomic(false)
    private let inside = Atomic(0)

    enum Event: Equatable, Sendable {
      case value(Value)
      case status(DescriptorStatus)
    }

    var ranOnMainThread: Bool { mainThreadCalls.load(ordering: .acquiring) }
    var overlapped: Bool { overlaps.load(ordering: .acquiring) }

    @Sendable func next(_ value: Value) { record(.value(value)) }
    @Sendable func status(_ status: DescriptorStatus) { record(.status(status)) }

    private func record(_ event: Event) {
      if inside.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
        overlaps.store(true, ordering: .releasing)
      }
      if Thread.isMainThread { mainThreadCalls.store(true, ordering: .releasing) }
      events.withLock { $0.append(event) }
      inside.subtract(1, ordering: .acquiringAndReleasing)
    }

    var values: [Value] {
      events.withLock { $0 }.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }
  }

  @Test func bytesOfAPipeReachTheHandlerWhileTheMainActorIsBlocked() async throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let arrived = DispatchSemaphore(value: 0)
    let seen = Seen<[UInt8]>()
    let subscription = try FileDescriptors.bytes(of: pipe.read, ownership: .streamCloses).subscribe(
      on: .sendingThread,
      next: { chunk in
        seen.next(chunk)
        arrived.signal()
      })
    // The main actor is held until the bytes arrive: a handler that hopped to it could not
    // run, and the wait would time out.
    let result = await MainActor.run {
      pipe.send("abc")
      return arrived.wait(timeout: .now() + 60)
    }
    #expect(result == .success)
    #expect(seen.values.flatMap { $0 } == Array("abc".utf8))
    #expect(!seen.ranOnMainThread)
    subscription.unsubscribe()
  }

  @Test func linesArriveInOrderOneAtATimeThenEndOfFile() async throws {
    let pipe = Pipe()
    let seen = Seen<String>()
    let subscription = try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses).subscribe(
      on: .sendingThread, next: seen.next, status: seen.status)
    let expected = (0..<5_000).map { "line \($0)" }
    let writer = Thread {
      for start in stride(from: 0, to: expected.count, by: 100) {
        pipe.send(expected[start..<start + 100].map { $0 + "\n" }.joined())
      }
      close(pipe.write)
    }
    writer.start()
    #expect(await eventually { seen.events.withLock { $0.last } == .status(.endOfFile) })
    #expect(seen.values == expected)
    #expect(seen.events.withLock { $0.count } == expected.count + 1)
    #expect(!seen.overlapped)
    #expect(!seen.ranOnMainThread)
    subscription.unsubscribe()
  }

  @Test func aRegularFileIsReadOnceOnTheSubscribingThreadFirst() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("data.txt")
    append("one\ntwo\nthree", to: path)
    let seen = Seen<String>()
    let subscribingThread = pthread_self()
    let firstOnSubscribingThread = LockedState<Bool?>(nil)
    let subscription = try FileDescriptors.lines(of: open(path, O_RDONLY), ownership: .streamCloses)
      .subscribe(
        on: .sendingThread,
        next: { line in
          firstOnSubscribingThread.withLock {
            $0 = $0 ?? (pthread_equal(pthread_self(), subscribingThread) != 0)
          }
          seen.next(line)
        }, status: seen.status)
    // Read before the subscription was returned.
    #expect(
      seen.events.withLock { $0 } == [
        .value("one"), .value("two"), .value("three"), .status(.endOfFile),
      ])
    #expect(firstOnSubscribingThread.withLock { $0 } == true)
    subscription.unsubscribe()
  }

  @Test func unsubscribingStopsTheReadingAndClosesTheDescriptor() async throws {
    for ownership in [DescriptorOwnership.streamCloses, .callerCloses] {
      let pipe = Pipe()
      let identity = try? FileIdentity(descriptor: pipe.read)
      #expect(descriptorsOpen(on: identity) == 2)  // the pipe's two ends: one inode
      let seen = Seen<[UInt8]>()
      let subscription = try FileDescriptors.bytes(of: pipe.read, ownership: ownership).subscribe(
        on: .sendingThread, next: seen.next)
      pipe.send("a")
      #expect(await eventually { seen.values.count == 1 })
      subscription.unsubscribe()
      let left = ownership == .streamCloses ? 1 : 2  // the write end, and the caller's read end
      #expect(await eventually { descriptorsOpen(on: identity) == left })
      if ownership == .callerCloses {
        // The read end is still open (a write to a closed one would raise SIGPIPE): nothing
        // reads it any more.
        pipe.send("b")
        try await Task.sleep(for: .seconds(0.05))
        close(pipe.read)
      }
      #expect(seen.values == [Array("a".utf8)])
      close(pipe.write)
    }
  }

  @Test func aHandlerMayUnsubscribeItself() async throws {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let seen = Seen<[UInt8]>()
    let own = LockedState<SendableSubscription?>(nil)
    let subscription = try FileDescriptors.bytes(of: pipe.read, ownership: .callerCloses).subscribe(
      on: .sendingThread,
      next: { chunk in
        seen.next(chunk)
        own.withLock { $0 }?.unsubscribe()
      })
    own.withLock { $0 = subscription }
    pipe.send("a")
    #expect(await eventually { subscription.isUnsubscribed })
    pipe.send("b")
    try await Task.sleep(for: .seconds(0.05))
    #expect(seen.values == [Array("a".utf8)])
  }

  @Test func badDescriptorsAreThrownAndStayTheirOwners() {
    #expect(throws: FileDescriptorError.negative(-1)) {
      try FileDescriptors.bytes(of: -1, ownership: .streamCloses).subscribe(on: .sendingThread) {
        _ in
      }
    }
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    #expect(throws: FileDescriptorError.notReadable(pipe.write)) {
      try FileDescriptors.lines(of: pipe.write, ownership: .streamCloses).subscribe(
        on: .sendingThread
      ) {
        _ in
      }
    }
    #expect(isOpen(pipe.write))
    #expect(throws: FileDescriptorError.maximumLineLengthNotPositive(0)) {
      try FileDescriptors.lines(of: pipe.read, ownership: .streamCloses, maximumLineLength: 0)
        .subscribe(on: .sendingThread) { _ in }
    }
    #expect(isOpen(pipe.read))
  }

  @Test func readinessIsReportedOnThePollerThreadWhileTheMainActorIsBlocked() async throws {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let reports = Recorder<Int>()
    let onMainActor = Recorder<Bool>()
    let subscription = try FileDescriptors.readable(pipe.read, ownership: .streamCloses).subscribe(
      on: .sendingThread
    ) { available in
      onMainActor.record(MainQueue.isCurrent)
      reports.record(available)
      // Read what is there, as a subscriber must, or the report comes again at once.
      var buffer = [UInt8](repeating: 0, count: max(available, 1))
      _ = read(pipe.read, &buffer, buffer.count)
    }
    // The main actor is held until the report arrives: one that hopped to it could not.
    let arrived = await MainActor.run {
      pipe.send("abc")
      return reports.wait(forCount: 1, seconds: 60)
    }
    #expect(arrived)
    #expect(reports.values.first == 3)
    #expect(!onMainActor.values.contains(true))
    subscription.unsubscribe()
  }

  /// A readiness subscriber reads the descriptor itself, in its call: unsubscribed from another
  /// thread during that call, a stream that owns the descriptor closes it only once the call has
  /// returned, so the call never reads a closed descriptor, nor whatever the system has given
  /// its number to since. (Closed at once, the subscriber of
  /// `readinessIsReportedOnThePollerThreadWhileTheMainActorIsBlocked` could read the next test's
  /// pipe, which had the same numbers, in a blocking read on the poller's thread: that test
  /// heard nothing for 60 s, under ThreadSanitizer.)
  @Test func unsubscribedDuringAReadinessCallTheOwnedDescriptorIsClosedOnceTheCallReturned()
    async throws
  {
    let pipe = Pipe()
    defer { close(pipe.write) }
    let identity = try? FileIdentity(descriptor: pipe.read)
    let inCall = DispatchSemaphore(value: 0)
    let unsubscribed = DispatchSemaphore(value: 0)
    let openAfterUnsubscribe = Recorder<Bool>()
    let own = LockedState<SendableSubscription?>(nil)
    let subscription = try FileDescriptors.readable(pipe.read, ownership: .streamCloses).subscribe(
      on: .sendingThread
    ) { available in
      inCall.signal()
      // Holds the poller's thread only while a thread of its own unsubscribes (below).
      _ = unsubscribed.wait(timeout: .now() + 60)
      openAfterUnsubscribe.record(isStillOpen(pipe.read, identity))
      var buffer = [UInt8](repeating: 0, count: max(available, 1))
      _ = read(pipe.read, &buffer, buffer.count)
    }
    own.withLock { $0 = subscription }
    let unsubscriber = Thread {
      guard inCall.wait(timeout: .now() + 60) == .success else { return }
      own.withLock { $0 }?.unsubscribe()
      unsubscribed.signal()
    }
    unsubscriber.start()
    pipe.send("a")
    #expect(await openAfterUnsubscribe.arrival(ofCount: 1))
    #expect(openAfterUnsubscribe.values == [true], "open for the whole call")
    #expect(await eventually { !isStillOpen(pipe.read, identity) }, "closed once it returned")
    #expect(subscription.isUnsubscribed)
  }

  @Test func aReadinessSubscriberMayUnsubscribeItselfAndHearsNothingAfter() async throws {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    for events in ["readable", "writable"] {
      let reports = Recorder<Int>()
      let own = LockedState<SendableSubscription?>(nil)
      // How many reports had come when the subscriber's unsubscribe returned.
      let heardWhenUnsubscribed = Recorder<Int>()
      let next: @Sendable (Int) -> Void = { room in
        reports.record(room)
        // Neither read nor written: the descriptor stays ready, and only the unsubscribe
        // keeps the report from coming again (a writable pipe is ready before `own` is set).
        guard let subscription = own.withLock({ $0 }) else { return }
        subscription.unsubscribe()
        heardWhenUnsubscribed.record(reports.count)
      }
      let subscription =
        events == "readable"
        ? try FileDescriptors.readable(pipe.read, ownership: .callerCloses).subscribe(
          on: .sendingThread, next: next)
        : try FileDescriptors.writable(pipe.write, ownership: .callerCloses).subscribe(
          on: .sendingThread, next: next)
      own.withLock { $0 = subscription }
      if events == "readable" { pipe.send("a") }
      #expect(await heardWhenUnsubscribed.arrival(ofCount: 1))
      try await Task.sleep(for: .milliseconds(50))
      #expect(
        [reports.count] == heardWhenUnsubscribed.values, "\(events): nothing after the unsubscribe")
      if events == "writable" { #expect(reports.values.first ?? 0 > 0) }
    }
  }

  @Test func readinessOfTheWrongDirectionIsThrownAndTheDescriptorStaysTheirOwners() {
    let pipe = Pipe()
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    #expect(throws: FileDescriptorError.notReadable(pipe.write)) {
      try FileDescriptors.readable(pipe.write, ownership: .streamCloses).subscribe(
        on: .sendingThread
      ) {
        _ in
      }
    }
    #expect(throws: FileDescriptorError.notWritable(pipe.read)) {
      try FileDescriptors.writable(pipe.read, ownership: .streamCloses).subscribe(
        on: .sendingThread
      ) {
        _ in
      }
    }
    #expect(throws: FileDescriptorError.negative(-1)) {
      try FileDescriptors.readable(-1, ownership: .streamCloses).subscribe(on: .sendingThread) {
        _ in
      }
    }
    #expect(isOpen(pipe.read))
    #expect(isOpen(pipe.write))
  }
}
