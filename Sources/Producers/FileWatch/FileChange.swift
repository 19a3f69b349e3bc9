/// One change seen by a ``FileWatch`` stream.
public enum FileChange: Sendable, Hashable, CustomStringConvertible {
  /// The watched file's contents changed (written, appended to or truncated).
  case modified
  /// The watched file's metadata changed: permissions, owner, timestamps or link count.
  case attributes
  /// A file appeared at the watched path where there was none (created, or moved there).
  case created
  /// The watched file was deleted: its name was removed. A descriptor watch reports this when
  /// the last link went away, though the file lives on while a descriptor holds it.
  case deleted
  /// The watched file was renamed or moved away from its path: `to` is its new path when a
  /// path watch saw the rename's other half, a new name in the same directory (on Linux);
  /// nil when it went to another directory, for a descriptor watch, and on Apple platforms.
  ///
  /// A file that arrived at a watched path and left it again before the watch read either
  /// event (a busy reader, a writer that renames within a millisecond) has no `.created`, as
  /// it is not the file at the path any more: this names where to open it.
  case renamed(to: String?)
  /// Another file was moved over the watched path, replacing what was there (an atomic save,
  /// or `mv new app.log`).
  case replaced

  /// The change's name, as in `modified`.
  public var description: String {
    switch self {
    case .modified: "modified"
    case .attributes: "attributes"
    case .created: "created"
    case .deleted: "deleted"
    case .renamed(let path?): "renamed to \(path)"
    case .renamed(nil): "renamed"
    case .replaced: "replaced"
    }
  }
}
