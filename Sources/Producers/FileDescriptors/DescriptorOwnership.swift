/// Who closes a descriptor handed to ``FileDescriptors``.
///
/// A descriptor you keep is never read or waited on itself: each subscription reads a duplicate
/// of its own, which the stream closes once it has stopped waiting on it. A descriptor you hand
/// over is read by the stream's first subscription itself (no duplicate: one descriptor per
/// stream), and by every other subscription through a duplicate of its own.
public enum DescriptorOwnership: Sendable, Hashable {
  /// The stream owns the descriptor: it closes it when its last active subscription has
  /// unsubscribed (on the reading queue, just after that `unsubscribe()`, once the read in
  /// progress and the wait on it have ended), or when the stream is released without ever being
  /// subscribed. Do not close it yourself.
  ///
  /// Several subscriptions may be active at once. A subscription made after the stream closed
  /// the descriptor reports ``FileDescriptorError/closedByStream(_:)`` on the status channel,
  /// and never touches whatever file now has that number.
  case streamCloses
  /// The caller keeps the descriptor, and may close it any time after the last subscription
  /// unsubscribed.
  case callerCloses
}
