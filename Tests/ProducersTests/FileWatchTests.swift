import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What a path watch reports for its file renamed to `path` in the same directory: the new
/// path on Linux, where the system pairs the rename's halves; nil on Apple platforms.
func renamed(to path: String) -> FileChange {
  #if os(Linux)
    .renamed(to: path)
  #else
    .renamed(to: nil)
  #endif
}

@MainActor @Suite(.checksLiveResources) struct FileWatchTests {
  @Test func aPathWatchReportsModificationRenameAndTheNextFileAtThePath() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
    append("y\n", to: path)
    #expect(await changes.arrival { $0.contains(.modified) })
    rename(path, path + ".1")
    #expect(await changes.arrival { $0.contains(renamed(to: path + ".1")) })
    append("z\n", to: path)
    #expect(await changes.arrival { $0.contains(.created) })
    // The watch moved to the new file: its modification is reported, not the old one's.
    let before = changes.values.count
    append("old\n", to: path + ".1")
    append("new\n", to: path)
    #expect(await changes.arrival { $0.count > before })
    try await Task.sleep(for: .seconds(0.05))
    #expect(Set(changes.values.dropFirst(before)) == [.modified])
    subscription.unsubscribe()
  }

  /// A path with no file, watched with `ifMissing: .waitForIt`: the file that appears there is
  /// reported as created, and then watched; with the default, the same path is refused; and a
  /// missing directory is refused either way.
  @Test func aMissingFileIsWaitedForWhenAskedAndRefusedOtherwise() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    #expect(throws: FileWatchError.notFound(path)) { try FileWatch.changes(at: path) }
    #expect(throws: FileWatchError.notFound(path + "/below")) {
      try FileWatch.changes(at: path + "/below", ifMissing: .waitForIt)
    }
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(at: path, ifMissing: .waitForIt)
      .subscribe(changes.record)
    append("x\n", to: path)
    #expect(await changes.arrival { $0.contains(.created) })
    append("y\n", to: path)
    #expect(await changes.arrival { $0.contains(.modified) })
    #expect(changes.values.first == .created)
    subscription.unsubscribe()
  }

  @Test func aFileMovedOverThePathIsReportedAsReplaced() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("config")
    append("1\n", to: path)
    append("2\n", to: directory.file("config.tmp"))
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
    rename(directory.file("config.tmp"), path)
    #expect(await changes.arrival { $0.contains(.replaced) })
    unlink(path)
    #expect(await changes.arrival { $0.contains(.deleted) })
    subscription.unsubscribe()
  }

  /// The directory of the path goes, whole, and comes back: removed (as `rm -rf` does), or
  /// renamed away. The watch reports the file's end, waits for the directory to be back, and
  /// reports the next file at the path and its changes.
  #if os(Linux)
    @Test(arguments: [false, true])
    func aPathWatchOutlivesItsDirectory(renamingTheDirectory: Bool) async throws {
      let directory = TemporaryDirectory()
      defer { directory.remove() }
      let logs = directory.file("logs")
      mkdir(logs, 0o755)
      let path = logs + "/app.log"
      append("x\n", to: path)
      // A descriptor still open on the file keeps the removed directory in the kernel, which
      // delays the end of its watch (IN_IGNORED) until it is closed; a reader of the file holds
      // one, as `follow` does while it reads a rotated file to its end.
      let reader = open(path, O_RDONLY)
      defer { close(reader) }
      let changes = Recorder<FileChange>()
      let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
      if renamingTheDirectory {
        rename(logs, directory.file("logs.old"))
        #expect(await changes.arrival { $0.contains(.renamed(to: nil)) })
      } else {
        unlink(path)
        rmdir(logs)
        #expect(await changes.arrival { $0.contains(.deleted) })
      }
      mkdir(logs, 0o755)
      append("y\n", to: path)
      #expect(await changes.arrival { $0.contains(.created) })
      let before = changes.values.count
      append("z\n", to: path)
      #expect(await changes.arrival { $0.count > before })
      #expect(changes.values.dropFirst(before).contains(.modified))
      #expect(changes.values.filter { $0 == .created }.count == 1)
      subscription.unsubscribe()
    }
  #endif

  @Test func aDescriptorWatchFollowsTheFileWhereverItGoes() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(of: fd).subscribe(changes.record)
    rename(path, path + ".1")
    #expect(await changes.arrival { $0.contains(.renamed(to: nil)) })
    append("y\n", to: path + ".1")
    #expect(await changes.arrival { $0.contains(.modified) })
    unlink(path + ".1")
    #expect(await changes.arrival { $0.contains(.deleted) })
    subscription.unsubscribe()
  }

  @Test func badPathsAndDescriptorsAreThrownWhenTheStreamIsMade() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let missing = directory.file("missing")
    #expect(throws: FileWatchError.notFound(missing)) { try FileWatch.changes(at: missing) }
    #expect(throws: FileWatchError.notFound(missing + "/below")) {
      try FileWatch.changes(at: missing + "/below")
    }
    #expect(throws: FileWatchError.descriptor(.negative(-1))) { try FileWatch.changes(of: -1) }
    #expect(throws: FileWatchError.descriptor(.notOpen(987_654))) {
      try FileWatch.changes(of: 987_654)
    }
  }

  @Test func subscriptionsShareOneWatchAndUnsubscribedOnesHearNothing() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let stream = try FileWatch.changes(at: path)
    let first = Recorder<FileChange>()
    let second = Recorder<FileChange>()
    let one = stream.subscribe(first.record)
    let two = stream.subscribe(second.record)
    append("y\n", to: path)
    #expect(await first.arrival { !$0.isEmpty })
    #expect(await second.arrival { !$0.isEmpty })
    one.unsubscribe()
    let heard = first.values.count
    append("z\n", to: path)
    #expect(await second.arrival { $0.count > heard })
    try await Task.sleep(for: .seconds(0.05))
    #expect(first.values.count == heard)
    two.unsubscribe()
  }

  @Test func manyWatchesMadeAndDroppedLeaveNoDescriptorOpen() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    for _ in 0..<100 {
      let changes = Recorder<FileChange>()
      let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
      append("y\n", to: path)
      #expect(await changes.arrival { !$0.isEmpty })
      subscription.unsubscribe()
    }
    // Only what the watches could have left is counted, since other tests open descriptors in
    // parallel (a count of all of them, with room for 20, failed once in 10 loaded runs): none on
    // the file or its directory, and no inotify instance but the process's one.
    #expect(
      await eventually {
        openDescriptorCount(linkedTo: directory.path) == 0
          && openDescriptorCount(linkedTo: "anon_inode:inotify") <= 1
      })
  }

  @Test func watchesMadeAndDroppedBackToBackNeverRunOutOfInotifyInstances() async throws {
    // The system allows 128 inotify instances per user by default; a watch whose instance is
    // closed later, on a queue, lets them pile up when watches come and go quickly.
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    for index in 0..<400 {
      do {
        let subscription = try FileWatch.changes(at: path).subscribe { _ in }
        subscription.unsubscribe()
      } catch {
        Issue.record("watch \(index) failed: \(error)")
        return
      }
    }
  }

  @Test func aSubscriberReleasedByUnsubscribeMayEndAnotherSubscriptionOfTheSameWatch() async throws
  {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let changes = try FileWatch.changes(at: path)
    // A model object that owns a bag, and is captured by its own subscriber: unsubscribing
    // releases the closure, the model's deinit ends the bag, and the bag unsubscribes another
    // subscription of the same watch.
    final class Model {
      let bag = SubscriptionBag()
    }
    var model: Model? = Model()
    changes.subscribe { _ in }.store(in: model!.bag)
    // Ended on another thread, as any `SendableSubscription` may be.
    let own = changes.subscribe { [model] _ in _ = model }
    model = nil
    let finished = DispatchSemaphore(value: 0)
    let unsubscribing = Thread {
      own.unsubscribe()
      finished.signal()
    }
    unsubscribing.start()
    #expect(finished.wait(timeout: .now() + 10) == .success, "unsubscribe() never returned")
  }

  @Test func aDescriptorWatchNeverLooksAtAnotherFileThatReusedTheNumber() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let watched = directory.file("watched")
    let other = directory.file("other")
    append("x\n", to: watched)
    append("y\n", to: other)
    let fd = open(watched, O_RDONLY)
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(of: fd).subscribe(changes.record)
    // The caller closes its descriptor; the number now names another file, which is deleted
    // while still open (no links left).
    let reopened = open(other, O_RDONLY)
    close(fd)
    dup2(reopened, fd)
    close(reopened)
    defer { close(fd) }
    unlink(other)
    // A change of the watched file's attributes must not be read as the other file's deletion.
    chmod(watched, 0o600)
    #expect(await changes.arrival { $0.contains(.attributes) })
    try await Task.sleep(for: .seconds(0.1))
    #expect(!changes.values.contains(.deleted), "\(changes.values)")
    subscription.unsubscribe()
  }
}
