#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Thin wrappers over the system calls the producers use: each retries on EINTR and returns the
/// errno of a failure, so the producers read as Swift.
enum System {
  /// The current value of errno.
  static var errno: Int32 {
    #if canImport(Darwin)
      Darwin.errno
    #elseif canImport(Glibc)
      Glibc.errno
    #else
      Musl.errno
    #endif
  }

  /// Whether `fd` names an open descriptor of this process.
  static func isOpen(_ fd: Int32) -> Bool {
    fcntl(fd, F_GETFD) != -1
  }

  /// A close-on-exec duplicate of `fd`, sharing its open file (and offset), or the errno.
  static func duplicate(_ fd: Int32) -> Result<Int32, Errno> {
    let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
    return duplicate >= 0 ? .success(duplicate) : .failure(Errno(errno))
  }

  /// Whether `fd` is ready now for `events` (`POLLIN`, `POLLOUT`), without waiting. End of
  /// file, a hang-up and an error count as ready: the next read or write will not block.
  static func isReady(_ fd: Int32, for events: Int16) -> Bool {
    var entry = pollfd(fd: fd, events: events, revents: 0)
    while true {
      let count = poll(&entry, 1, 0)
      if count >= 0 { return count > 0 && entry.revents != 0 }
      if errno != EINTR { return false }
    }
  }

  /// The bytes that a read of `fd` would return now (`FIONREAD`; 0 at end of file), or nil
  /// when the descriptor cannot tell.
  static func readableByteCount(_ fd: Int32) -> Int? {
    var count: Int32 = 0
    return ioctl(fd, fionread, &count) == 0 ? Int(count) : nil
  }

  #if canImport(Darwin)
    /// `FIONREAD`, which <sys/filio.h> defines as `_IOR('f', 127, int)`: Swift imports no macro
    /// built with `sizeof`, so Darwin's is spelled out (`IOC_OUT | sizeof(int) << 16 | 'f' << 8
    /// | 127`), as Swift's own overlay does for the `TIOC` requests (`TiocConstants.swift`).
    private static let fionread: UInt = 0x4004_667F
  #else
    private static let fionread = UInt(FIONREAD)
  #endif

  /// The access mode (`O_RDONLY`, `O_WRONLY` or `O_RDWR`) of an open descriptor.
  static func accessMode(_ fd: Int32) -> Int32 {
    fcntl(fd, F_GETFL) & O_ACCMODE
  }

  /// The `stat` of an open descriptor, or its errno.
  static func status(_ fd: Int32) -> Result<stat, Errno> {
    var info = stat()
    return fstat(fd, &info) == 0 ? .success(info) : .failure(Errno(errno))
  }

  /// The `stat` of a path (following symbolic links), or its errno.
  static func status(path: String) -> Result<stat, Errno> {
    var info = stat()
    return stat(path, &info) == 0 ? .success(info) : .failure(Errno(errno))
  }

  /// Whether a `stat` describes a regular file.
  static func isRegular(_ info: stat) -> Bool {
    (info.st_mode & S_IFMT) == S_IFREG
  }

  /// Whether a `stat` describes a directory.
  static func isDirectory(_ info: stat) -> Bool {
    (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Reads into `buffer` at the descriptor's offset; the count read, 0 at end of file.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    while true {
      #if canImport(Darwin)
        let count = Darwin.read(fd, buffer.baseAddress, buffer.count)
      #elseif canImport(Glibc)
        let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
      #else
        let count = Musl.read(fd, buffer.baseAddress, buffer.count)
      #endif
      if count >= 0 { return .success(count) }
      if errno != EINTR { return .failure(Errno(errno)) }
    }
  }

  /// Reads into `buffer` at `offset`, leaving the descriptor's offset alone.
  static func read(
    _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) -> Result<Int, Errno> {
    while true {
      let count = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
      if count >= 0 { return .success(count) }
      if errno != EINTR { return .failure(Errno(errno)) }
    }
  }

  /// The descriptor's current offset, or 0 when it has none (a pipe, say).
  static func offset(_ fd: Int32) -> Int64 {
    max(0, Int64(lseek(fd, 0, SEEK_CUR)))
  }

  /// Makes a one-way channel whose two ends are non-blocking and close-on-exec; its read and
  /// write ends.
  ///
  /// On Linux it is a Unix-domain socket pair, made with both flags atomically (`pipe2` is not
  /// visible to Swift without `_GNU_SOURCE`); elsewhere a pipe whose flags are set right after
  /// `pipe`, so a process spawned by another thread in between can inherit the ends.
  static func makePipe() -> Result<(read: Int32, write: Int32), Errno> {
    var fds: [Int32] = [-1, -1]
    #if canImport(Glibc)
      let type = Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
      guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { return .failure(Errno(errno)) }
      _ = shutdown(fds[0], Int32(SHUT_WR))
      _ = shutdown(fds[1], Int32(SHUT_RD))
    #else
      guard pipe(&fds) == 0 else { return .failure(Errno(errno)) }
      for fd in fds {
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0,
          fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0
        else {
          let failure = Errno(errno)
          fds.forEach(close)
          return .failure(failure)
        }
      }
    #endif
    return .success((fds[0], fds[1]))
  }

  /// Closes a descriptor. EINTR is not retried: on Linux the descriptor is closed regardless.
  static func close(_ fd: Int32) {
    #if canImport(Darwin)
      _ = Darwin.close(fd)
    #elseif canImport(Glibc)
      _ = Glibc.close(fd)
    #else
      _ = Musl.close(fd)
    #endif
  }
}
