#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Which file a descriptor or a path refers to: its device and inode, and when it was made.
///
/// A device and an inode name a file only while it exists: once a file is deleted, the system
/// gives its inode to the next file made, often at once, so a log deleted and made again can
/// come back on the inode of the old one. The birth time tells them apart where the system
/// keeps one: `statx` on Linux, on file systems that record it (ext4, XFS and Btrfs record it);
/// `st_birthtimespec` on Apple platforms. Elsewhere ``birth`` is nil, and a file made on a
/// deleted file's inode cannot be told from it by its identity (``FileCheckpoint`` can still
/// tell that its content changed).
///
/// ``matches(_:)`` is the question "is this the same file?": it compares the birth times only
/// when both identities have one, so an identity recorded without one (an older record, a file
/// system without birth times) still matches its file. `==` compares the three values as they
/// are.
///
/// ```swift
/// let path = NSTemporaryDirectory() + "identity-example"
/// FileManager.default.createFile(atPath: path, contents: Data("one\n".utf8))
/// let fd = open(path, O_RDONLY)
/// let opened = try FileIdentity(descriptor: fd)
/// print(opened.matches(try FileIdentity(path: path)))  // true
/// unlink(path)  // the file lives on while `fd` is open; its path is gone
/// print((try? FileIdentity(path: path)) == nil)  // true
/// close(fd)
/// ```
///
/// A value: it reads the system once, when it is made, and never again.
public struct FileIdentity: Hashable, Sendable {
  /// The device of the file system that holds the file (`st_dev`).
  public var device: UInt64
  /// The file's inode number on its device (`st_ino`).
  public var inode: UInt64
  /// When the file was made, in nanoseconds since 1970, or nil where the system does not say.
  public var birth: Int64?

  /// An identity recorded earlier, for example in a state file.
  public init(device: UInt64, inode: UInt64, birth: Int64? = nil) {
    self.device = device
    self.inode = inode
    self.birth = birth
  }

  /// The identity of the file open as `fd` (`fstat`, and `statx` for the birth time on Linux).
  ///
  /// Works on any open descriptor, of a file, a pipe or a socket (a pipe's two ends are one
  /// inode, so they have one identity). Throws the `errno` of `fstat` when `fd` is not an open
  /// descriptor (`EBADF`). Does not take `fd` over: the caller still owns it.
  public init(descriptor fd: Int32) throws(Errno) {
    let info = try System.status(fd).get()
    self.init(info, birth: Self.birth(of: info, descriptor: fd, path: ""))
  }

  /// The identity of the file at `path` now, following symbolic links (`stat`, and `statx`
  /// for the birth time on Linux).
  ///
  /// A path with nothing at it, such as a file deleted or renamed away or a dangling symbolic
  /// link, throws `Errno(ENOENT)`; a path that cannot be looked up throws the `errno` of
  /// `stat` (`ENOTDIR`, `EACCES`, `ELOOP`, ...). Write `try? FileIdentity(path:)` where "no
  /// file there" and "cannot tell" mean the same, as they do for ``matches(_:)``.
  public init(path: String) throws(Errno) {
    let info = try System.status(path: path).get()
    self.init(info, birth: Self.birth(of: info, descriptor: nil, path: path))
  }

  private init(_ info: stat, birth: Int64?) {
    device = UInt64(truncatingIfNeeded: info.st_dev)  // dev_t is signed (Int32) on Darwin
    inode = UInt64(info.st_ino)
    self.birth = birth
  }

  /// Whether `other` is the same file: the same device and inode, and the same birth time
  /// when both know one. Nil (no file, or none could be read) matches no file.
  public func matches(_ other: FileIdentity?) -> Bool {
    guard let other, device == other.device, inode == other.inode else { return false }
    guard let birth, let otherBirth = other.birth else { return true }
    return birth == otherBirth
  }

  /// The birth time of the file that `info` describes, open as `fd`, or else at `path`; nil
  /// where the system keeps none, or when the file at `path` changed between the two calls.
  private static func birth(of info: stat, descriptor fd: Int32?, path: String) -> Int64? {
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
          buffer.load(fromByteOffset: 0, as: UInt32.self) & birthTime != 0,  // stx_mask
          buffer.load(fromByteOffset: 32, as: UInt64.self) == UInt64(info.st_ino)  // stx_ino
        else { return nil }
        let seconds = buffer.load(fromByteOffset: 80, as: Int64.self)  // stx_btime.tv_sec
        let nanoseconds = buffer.load(fromByteOffset: 88, as: UInt32.self)  // .tv_nsec
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
