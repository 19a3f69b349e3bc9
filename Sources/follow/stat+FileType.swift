#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension stat {
  /// Whether this describes a directory.
  var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
  /// Whether this describes a regular file.
  var isRegular: Bool { (st_mode & S_IFMT) == S_IFREG }
  /// Whether this describes a pipe (a named one, at a path).
  var isPipe: Bool { (st_mode & S_IFMT) == S_IFIFO }
}
