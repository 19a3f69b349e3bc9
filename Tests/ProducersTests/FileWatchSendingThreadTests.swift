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

/// `FileWatch.changes(at:on:_:)` and `changes(of:on:_:)` with `.sendingThread`: subscribed from
/// code on no actor, the handler runs on the thread that read the change.
@Suite(.checksLiveResources) struct FileWatchSendingThreadTests {
  /// What a handler saw: each change, whether it ran on the main thread, and whether two calls
  /// ever overlapped.
  final class Seen: Sendable {
    let changes = LockedState<[FileChange]>([])
    private let mainThreadCalls = Atomic(false)
    private let overlaps = Atomic(false)
    private let inside = Atomic(0)

    /// Whether a call ran on the main thread.
    var ranOnMainThread: Bool { mainThreadCalls.load(ordering: .acquiring) }
    /// Whether a call began while another was under way.
    var overlapped: Bool { overlaps.load(ordering: .acquiring) }

    @Sendable func record(_ change: FileChange) {
      if inside.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
        overlaps.store(true, ordering: .releasing)
      }
      if Thread.isMainThread { mainThreadCalls.store(true, ordering: .releasing) }
      changes.withLock { $0.append(change) }
      usleep(200)  // long enough for a second call, were one made at once, to overlap this one
      inside.subtract(1, ordering: .acquiringAndReleasing)
    }

    var values: [FileChange] { changes.withLock { $0 } }

    /// Waits (at most 60 s) until `done(values)` holds; whether it did.
    func arrival(until done: @escaping @Sendable ([FileChange]) -> Bool) async -> Bool {
      await eventually { done(self.values) }
    }
  }

  @Test func theHandlerRunsOnTheReadingThreadWhileTheMainActorIsBlocked() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let arrived = DispatchSemaphore(value: 0)
    let seen = Seen()
    let subscription = try FileWatch.changes(at: path).subscribe(on: .sendingThread) { change in
      seen.record(change)
      arrived.signal()
    }
    // The main actor is held until the change arrives: a handler that hopped to it could not
    // run, and the wait would time out.
    let result = await MainActor.run {
      append("y\n", to: path)
      return arrived.wait(timeout: .now() + 60)
    }
    #expect(result == .success)
    #expect(seen.values.first == .modified)
    #expect(!seen.ranOnMainThread)
    subscription.unsubscribe()
  }

  /// The handler runs where the poller's thread read the change, in no Dispatch queue: the
  /// inotify instance's turn is no queue's `sync` (two allocations an event on Linux,
  /// CONTRIBUTING.md, "Platform facts"). On Linux, where the package reads inotify itself.
  @Test(.enabled(if: isLinux)) func theHandlerRunsInNoDispatchQueue() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let label = LockedState<String?>(nil)
    let subscription = try FileWatch.changes(at: path).subscribe(on: .sendingThread) { change in
      guard change == .modified else { return }
      let current = currentQueueLabel(nil).map { String(cString: $0) } ?? ""
      label.withLock { $0 = $0 ?? current }
    }
    append("y\n", to: path)
    #expect(await eventually { label.withLock { $0 } != nil })
    // A thread of no queue reads as the root queue's ("com.apple.root.default-qos.overcommit").
    #expect(label.withLock { $0 }?.hasPrefix("IndefiniteObservable") == false)
    subscription.unsubscribe()
  }

  @Test func changesArriveInTheOrderReportedAndOneAtATime() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let seen = Seen()
    let subscription = try FileWatch.changes(at: path).subscribe(on: .sendingThread, seen.record)
    for _ in 0..<20 { append("y\n", to: path) }
    #expect(await seen.arrival { $0.contains(.modified) })
    rename(path, path + ".1")
    #expect(await seen.arrival { $0.contains(renamed(to: path + ".1")) })
    append("z\n", to: path)
    #expect(await seen.arrival { $0.contains(.created) })
    subscription.unsubscribe()
    let kinds = seen.values.reduce(into: [FileChange]()) { kinds, change in
      if kinds.last != change { kinds.append(change) }
    }
    #expect(Array(kinds.prefix(3)) == [.modified, renamed(to: path + ".1"), .created])
    #expect(!seen.overlapped)
    #expect(!seen.ranOnMainThread)
  }

  /// Watches `path` on the reading thread, and holds that thread in the first change's call (a
  /// write made here) until `release` is called, as a loaded machine holds it: what happens
  /// meanwhile is read after, all at once.
  #if os(Linux)
    private func watchingHeld(
      _ path: String
    ) async throws -> (Seen, release: @Sendable () -> Void, SendableSubscription) {
      let holding = LockedState(true)
      let (entered, released) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
      let seen = Seen()
      let subscription = try FileWatch.changes(at: path).subscribe(on: .sendingThread) {
        change in
        if holding.withLock({ $0 }) {
          entered.signal()
          released.wait()
        }
        seen.record(change)
      }
      append("y\n", to: path)
      #expect(await eventually { entered.wait(timeout: .now()) == .success })
      let release: @Sendable () -> Void = {
        holding.withLock { $0 = false }
        released.signal()
      }
      return (seen, release, subscription)
    }
  #endif

  /// Files that arrive at the path and leave it again before the watch reads either event
  /// (its reading thread is held here, as a loaded machine holds it; issue 49): each is
  /// reported by its rename alone, naming where it went (nil for another directory), in order;
  /// only the file at the path when the events are read is reported as created. Before, the
  /// first arrival was reported as a creation (of the file at the path by then), and no rename
  /// said where its file went.
  #if os(Linux)
    @Test func filesThatCameAndWentBeforeTheWatchReadTheirEventsAreReportedByWhereTheyWent()
      async throws
    {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("app.log")
      let elsewhere = directory.file("elsewhere")
      mkdir(elsewhere, 0o755)
      append("x\n", to: path)
      let (seen, release, subscription) = try await watchingHeld(path)
      rename(path, path + ".1")
      append("b\n", to: path)
      rename(path, path + ".2")
      append("c\n", to: path)
      rename(path, elsewhere + "/app.log")
      append("d\n", to: path)
      release()
      #expect(await seen.arrival { $0.contains(.created) })
      try await Task.sleep(for: .milliseconds(50))
      subscription.unsubscribe()
      #expect(
        Array(seen.values.drop { $0 == .modified }) == [
          .renamed(to: path + ".1"), .renamed(to: path + ".2"), .renamed(to: nil), .created,
        ])
    }
  #endif

  /// A burst of a hundred files made and renamed away while the watch's reading thread is held:
  /// more events than one read takes (1 KiB), so the reads cut some renames in two. The new
  /// names differ in length, as other watches' events do, so a read can stop short of an event
  /// that does not fit in it. Each rename still names where its file went: what fills a read
  /// is handed on with the rest of the burst. (Before, a rename whose halves two reads took said
  /// nothing of where.)
  #if os(Linux)
    @Test func aBurstLongerThanOneReadStillNamesWhereEachFileWent() async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let path = directory.file("app.log")
      append("x\n", to: path)
      let (seen, release, subscription) = try await watchingHeld(path)
      let names = (0...100).map { path + ".\($0)" + String(repeating: "x", count: $0 % 23) }
      rename(path, names[0])
      for file in 1...100 {
        append("\(file)\n", to: path)
        rename(path, names[file])
      }
      append("last\n", to: path)
      release()
      #expect(await seen.arrival { $0.contains(.created) })
      try await Task.sleep(for: .milliseconds(50))
      subscription.unsubscribe()
      let expected = names.map { FileChange.renamed(to: $0) } + [.created]
      #expect(Array(seen.values.drop { $0 == .modified }) == expected)
    }
  #endif

  @Test func unsubscribingReleasesTheWatchAndItsDescriptorBeforeReturning() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    #expect(openDescriptorCount(linkedTo: path) == 1)
    let seen = Seen()
    let subscription = try FileWatch.changes(of: fd).subscribe(on: .sendingThread, seen.record)
    #expect(openDescriptorCount(linkedTo: path) == 2)  // the watch's duplicate
    append("y\n", to: path)
    #expect(await seen.arrival { $0.contains(.modified) })
    subscription.unsubscribe()
    #expect(openDescriptorCount(linkedTo: path) == 1)
    let heard = seen.values.count
    append("z\n", to: path)
    try await Task.sleep(for: .seconds(0.05))
    #expect(seen.values.count == heard)
  }

  @Test func aHandlerMayUnsubscribeItself() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let seen = Seen()
    let own = LockedState<SendableSubscription?>(nil)
    let subscription = try FileWatch.changes(at: path).subscribe(on: .sendingThread) { change in
      seen.record(change)
      own.withLock { $0 }?.unsubscribe()
    }
    own.withLock { $0 = subscription }
    append("y\n", to: path)
    #expect(await eventually { subscription.isUnsubscribed })
    let heard = seen.values.count
    append("z\n", to: path)
    try await Task.sleep(for: .seconds(0.05))
    #expect(seen.values.count == heard)
  }

  @Test func aMissingPathIsThrownAndWatchesNothing() {
    #expect(throws: FileWatchError.notFound("/nonexistent/app.log")) {
      try FileWatch.changes(at: "/nonexistent/app.log").subscribe(on: .sendingThread) { _ in }
    }
    #expect(throws: FileWatchError.descriptor(.negative(-1))) {
      try FileWatch.changes(of: -1).subscribe(on: .sendingThread) { _ in }
    }
  }
}

/// Whether the tests run on Linux.
private let isLinux: Bool = {
  #if os(Linux)
    true
  #else
    false
  #endif
}()

/// The label of the Dispatch queue the caller runs on (`dispatch_queue_get_label` of
/// `DISPATCH_CURRENT_QUEUE_LABEL`), which the Dispatch module does not export.
@_silgen_name("dispatch_queue_get_label")
private func currentQueueLabel(_ queue: OpaquePointer?) -> UnsafePointer<CChar>?
