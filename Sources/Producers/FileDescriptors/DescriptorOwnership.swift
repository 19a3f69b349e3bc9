/// Who closes a descriptor handed to ``FileDescriptors``.
///
/// Either way, Dispatch never watches the descriptor you hand over: each subscription reads a
/// duplicate of its own, which the stream closes once Dispatch has let go of it.
public enum DescriptorOwnership: Sendable, Hashable {
  /// The stream owns the descriptor: it closes it when its last active subscription
  /// unsubscribes (synchronously, in that `unsubscribe()`), or when the stream is released
  /// without ever being subscribed. Do not close it yourself.
  ///
  /// Several subscriptions may be active at once. A subscription made after the stream closed
  /// the descriptor reports ``FileDescriptorError/closedByStream(_:)`` on the status channel,
  /// and never touches whatever file now has that number.
  case streamCloses
  /// The caller keeps the descriptor, and may close it any time after the last subscription
  /// unsubscribed.
  case callerCloses
}
