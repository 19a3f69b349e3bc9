#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which file a descriptor or path refers to: its device and inode, and when it was made.
///
/// A device and inode name a file only while it exists: once a file is deleted, the system
/// gives its inode number to the next file made, often at once. So an identity recorded by
/// an earlier run (the state file) could name a file made since on the same inode, such as a
/// log re-created after a deletion, and `follow` would take it for the old one. The birth time
/// tells them apart where the system keeps it (`statx` on Linux, on file systems that record
/// it, such as ext4, XFS and Btrfs; `st_birthtimespec` on Apple platforms); elsewhere it is nil
/// and the check of the bytes before the recorded position is what is left (see
/// `FollowedPath`).
struct FileIdentity: Equatable {
  var device: UInt64
  var inode: UInt64
  /// When the file was made, in nanoseconds since 1970; nil where the system does not say.
  var birth: Int64?

  init(device: UInt64, inode: UInt64, birth: Int64? = nil) {
    self.device = device
    self.inode = inode
    self.birth = birth
  }

  /// The identity of the file open as `fd`, which `info` (its `fstat`) describes.
  init(_ info: stat, descriptor fd: Int32) {
    self.init(info, birth: Self.birth(of: info, at: fd, path: ""))
  }

  /// The identity of the file at `path` now, following links, or nil when there is none.
  init?(path: String) {
    guard let info = Self.status(path: path) else { return nil }
    self.init(info, birth: Self.birth(of: info, at: nil, path: path))
  }

  private init(_ info: stat, birth: Int64?) {
    device = UInt64(truncatingIfNeeded: info.st_dev)  // dev_t is signed (Int32) on Darwin
    inode = UInt64(info.st_ino)
    self.birth = birth
  }

  /// Whether `other` is this file: the same device and inode, and the same birth time when
  /// both know one (an identity recorded before birth times were, or on a file system without
  /// them, matches on device and inode).
  func matches(_ other: FileIdentity?) -> Bool {
    guard let other, device == other.device, inode == other.inode else { return false }
    guard let birth, let otherBirth = other.birth else { return true }
    return birth == otherBirth
  }

  /// The `stat` of `path`, following links, or nil when there is nothing there.
  static func status(path: String) -> stat? {
    var info = stat()
    return stat(path, &info) == 0 ? info : nil
  }

  /// The birth time of the file `info` describes: open as `fd`, or else at `path`.
  private static func birth(of info: stat, at fd: Int32?, path: String) -> Int64? {
    #if os(Linux)
      // statx is in glibc 2.28 and later, but Glibc's Swift module does not declare it (it is
      // a _GNU_SOURCE declaration): it is looked up by name, and its result read at the
      // offsets of `struct statx`, which the kernel's ABI fixes.
      guard let statx = Statx.call else { return nil }
      let emptyPath: Int32 = 0x1000  // AT_EMPTY_PATH: `fd` itself
      let currentDirectory: Int32 = -100  // AT_FDCWD
      let birthTime: UInt32 = 0x800  // STATX_BTIME
      return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { buffer in
        let result =
          fd.map { statx($0, "", emptyPath, birthTime, buffer.baseAddress!) }
          ?? statx(currentDirectory, path, 0, birthTime, buffer.baseAddress!)
        guard result == 0,
          buffer.load(fromByteOffset: 0, as: UInt32.self) & birthTime != 0,
          buffer.load(fromByteOffset: 32, as: UInt64.self) == UInt64(info.st_ino)
        else { return nil }
        let seconds = buffer.load(fromByteOffset: 80, as: Int64.self)
        let nanoseconds = buffer.load(fromByteOffset: 88, as: UInt32.self)
        return seconds &* 1_000_000_000 &+ Int64(nanoseconds)
      }
    #elseif canImport(Darwin)
      let birth = info.st_birthtimespec
      return Int64(birth.tv_sec) &* 1_000_000_000 &+ Int64(birth.tv_nsec)
    #else
      return nil
    #endif
  }
}

#if os(Linux)
  /// glibc's `statx`, looked up once.
  private enum Statx {
    typealias Function =
      @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer
      ) -> Int32
    static let call: Function? = dlsym(nil, "statx").map { unsafeBitCast($0, to: Function.self) }
  }
#endif

extension stat {
  /// Whether this describes a directory.
  var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
  /// Whether this describes a regular file.
  var isRegular: Bool { (st_mode & S_IFMT) == S_IFREG }
}
