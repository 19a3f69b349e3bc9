import Dispatch
import IndefiniteObservable
import Multicast
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which file a descriptor or path refers to: its device and inode.
struct FileIdentity: Equatable {
  var device: UInt64
  var inode: UInt64

  init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }

  /// The identity of the file at `path` now, or nil when there is none.
  init?(path: String) {
    guard let info = Self.status(path: path) else { return nil }
    self.init(info)
  }

  /// The `stat` of `path`, following links, or nil when there is nothing there.
  static func status(path: String) -> stat? {
    var info = stat()
    return stat(path, &info) == 0 ? info : nil
  }
}

extension stat {
  /// Whether this describes a directory.
  var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
}

/// Why `follow` cannot follow a path; reported with exit status 2.
struct FollowError: Error, CustomStringConvertible {
  var description: String
}

/// One open file, read to its end and then followed: the lines stream of its descriptor,
/// read again each time a watch of that descriptor (not of its path) says it was modified. So
/// a file renamed away or deleted while a writer still appends to it is still read.
///
/// Confined to the follow queue: it is made, used and closed there, and its streams deliver
/// there.
final class FileTail {
  let identity: FileIdentity
  private var reading: Subscription?
  private var watching: Subscription?

  /// Opens `path` and starts reading it, from its start or from its current end.
  ///
  /// - Parameters:
  ///   - line: Receives each line, on `queue`.
  ///   - activity: Called on `queue` each time the file was modified.
  ///   - status: Receives truncation and failures of the lines stream, on `queue`.
  init(
    path: String,
    fromStart: Bool,
    queue: DispatchQueue,
    line: @escaping (String) -> Void,
    activity: @escaping () -> Void,
    status: @escaping (DescriptorStatus) -> Void
  ) throws(FollowError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw FollowError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    var info = stat()
    fstat(fd, &info)
    identity = FileIdentity(info)
    if !fromStart { lseek(fd, 0, SEEK_END) }
    do {
      let changes = try FileWatch.changes(of: fd, on: queue)
      let modified = changes.filter { $0 == .modified }.map { _ in () }
      let lines = try FileDescriptors.lines(
        of: fd, ownership: .streamCloses, on: queue, refill: modified)
      // Subscribe to the lines first: the descriptor is theirs, and the watch only borrows it.
      reading = lines.subscribe(next: line, status: status)
      watching = changes.filter { $0 == .modified }.subscribe { _ in activity() }
    } catch {
      #if canImport(Glibc)
        _ = Glibc.close(fd)
      #else
        _ = Darwin.close(fd)
      #endif
      throw FollowError(description: "cannot follow \(path): \(error)")
    }
  }

  /// Stops reading and closes the file.
  func stop() {
    watching?.unsubscribe()
    reading?.unsubscribe()
    watching = nil
    reading = nil
  }
}
