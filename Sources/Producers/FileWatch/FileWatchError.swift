/// Why ``FileWatch`` refused to make a watch stream.
public enum FileWatchError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Nothing exists at the path.
  case notFound(String)
  /// The path exists but cannot be watched (permission denied on it or a parent directory).
  case notAccessible(String, Errno)
  /// The descriptor to watch was refused; see ``FileDescriptorError``.
  case descriptor(FileDescriptorError)
  /// The system refused to make a watch: out of descriptors or of inotify watches
  /// (`fs.inotify.max_user_watches`), for example.
  case watchFailed(Errno)

  /// A sentence saying what was wrong.
  public var description: String {
    switch self {
    case .notFound(let path): "cannot watch \(path): no such file or directory"
    case .notAccessible(let path, let errno): "cannot watch \(path): \(errno)"
    case .descriptor(let error): "cannot watch: \(error)"
    case .watchFailed(let errno): "cannot make a file watch: \(errno)"
    }
  }
}
