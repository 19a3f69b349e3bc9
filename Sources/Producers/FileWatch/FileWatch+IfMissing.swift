extension FileWatch {
  /// What a path watch does when no file is at its path when it is made.
  ///
  /// ```swift
  /// let changes = try FileWatch.changes(at: "/var/log/app.log", ifMissing: .waitForIt)
  /// ```
  public enum IfMissing: Sendable, Equatable {
    /// Throw ``FileWatchError/notFound(_:)``: the caller decides what a missing file means.
    case throwNotFound
    /// Watch the name in its directory (which must exist), and report ``FileChange/created``
    /// when a file appears there, created or moved in, as the event says so: no file that
    /// appears, however briefly, is missed by a later look.
    case waitForIt
  }
}
