import Dispatch
import Foundation
import IndefiniteObservable
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite(.checksLiveResources) struct FileWatchTests {
  @Test func aPathWatchReportsModificationRenameAndTheNextFileAtThePath() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
    append("y\n", to: path)
    #expect(changes.wait { $0.contains(.modified) })
    rename(path, path + ".1")
    #expect(changes.wait { $0.contains(.renamed) })
    append("z\n", to: path)
    #expect(changes.wait { $0.contains(.created) })
    // The watch moved to the new file: its modification is reported, not the old one's.
    let before = changes.values.count
    append("old\n", to: path + ".1")
    append("new\n", to: path)
    #expect(changes.wait { $0.count > before })
    Thread.sleep(forTimeInterval: 0.05)
    #expect(Set(changes.values.dropFirst(before)) == [.modified])
    subscription.unsubscribe()
  }

  @Test func aFileMovedOverThePathIsReportedAsReplaced() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("config")
    append("1\n", to: path)
    append("2\n", to: directory.file("config.tmp"))
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
    rename(directory.file("config.tmp"), path)
    #expect(changes.wait { $0.contains(.replaced) })
    unlink(path)
    #expect(changes.wait { $0.contains(.deleted) })
    subscription.unsubscribe()
  }

  @Test func aDescriptorWatchFollowsTheFileWhereverItGoes() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let changes = Recorder<FileChange>()
    let subscription = try FileWatch.changes(of: fd).subscribe(changes.record)
    rename(path, path + ".1")
    #expect(changes.wait { $0.contains(.renamed) })
    append("y\n", to: path + ".1")
    #expect(changes.wait { $0.contains(.modified) })
    unlink(path + ".1")
    #expect(changes.wait { $0.contains(.deleted) })
    subscription.unsubscribe()
  }

  @Test func badPathsAndDescriptorsAreThrownWhenTheStreamIsMade() throws {
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

  @Test func subscriptionsShareOneWatchAndUnsubscribedOnesHearNothing() throws {
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
    #expect(first.wait { !$0.isEmpty })
    #expect(second.wait { !$0.isEmpty })
    one.unsubscribe()
    let heard = first.values.count
    append("z\n", to: path)
    #expect(second.wait { $0.count > heard })
    Thread.sleep(forTimeInterval: 0.05)
    #expect(first.values.count == heard)
    two.unsubscribe()
  }

  @Test func manyWatchesMadeAndDroppedLeaveNoDescriptorOpen() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.log")
    append("x\n", to: path)
    let before = openDescriptorCount()
    for _ in 0..<100 {
      let changes = Recorder<FileChange>()
      let subscription = try FileWatch.changes(at: path).subscribe(changes.record)
      append("y\n", to: path)
      #expect(changes.wait { !$0.isEmpty })
      subscription.unsubscribe()
    }
    // Other tests open descriptors in parallel: allow for them, but not for 100 watches.
    #expect(eventually { openDescriptorCount() < before + 20 })
  }
}
