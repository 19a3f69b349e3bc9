/// What a descriptor stream says besides its values, on the observer's `status` channel.
///
/// The stream itself never completes: after ``endOfFile`` and ``failed(_:)`` the subscription
/// stays valid (and must still be unsubscribed to release the descriptor), it just has nothing
/// more to deliver.
public enum DescriptorStatus: Sendable, Hashable {
  /// The reader reached the end of the data. For a pipe, socket, terminal or device this is
  /// final: the writer closed its end, or the device has nothing (`/dev/null`). For a regular
  /// file it means "caught up": reading resumes when the stream's `refill` trigger fires, and
  /// this status is reported again after each read that found new bytes.
  case endOfFile
  /// A regular file no longer holds what was read from it: it became shorter than the read
  /// position (truncated in place, as `copytruncate` log rotation does), or the bytes just
  /// before the position changed (truncated and written again past it before the reader
  /// looked). The reader starts again from the beginning, dropping any unfinished line. See
  /// ``FileCheckpoint`` for the one rewrite that cannot be told from growth. A file whose size
  /// reads 0 while it has content (a `/proc` or `/sys` file, made anew at each read) has no
  /// length to compare, and is never reported truncated.
  case truncated
  /// The descriptor cannot be read (or was closed by its stream); nothing more is delivered.
  case failed(FileDescriptorError)
}
