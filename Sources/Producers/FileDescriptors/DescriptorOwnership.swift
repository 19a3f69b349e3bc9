/// Who closes a descriptor handed to ``FileDescriptors``.
public enum DescriptorOwnership: Sendable, Hashable {
  /// The stream owns the descriptor and closes it when its last subscription ends (after the
  /// Dispatch source reading it was cancelled). Do not close it yourself.
  ///
  /// A stream that owns its descriptor is meant for one subscription at a time; subscribing
  /// again after it closed the descriptor reports ``FileDescriptorError/closedByStream(_:)`` on
  /// the status channel, and never touches whatever file now has that number.
  case streamCloses
  /// The caller keeps the descriptor and closes it after the last subscription ended.
  case callerCloses
}
