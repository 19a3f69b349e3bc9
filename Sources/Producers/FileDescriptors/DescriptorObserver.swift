import IndefiniteObservable

/// An observer with two channels: `next` for the values of a descriptor stream and `status` for
/// end of file, truncation and failure (see ``DescriptorStatus``).
public struct DescriptorObserver<Value>: Observer {
  /// Receives the next value.
  public let next: (Value) -> Void
  /// Receives what happened to the descriptor: end of file, truncation or failure.
  public let status: (DescriptorStatus) -> Void

  /// Creates an observer from its two channels.
  public init(
    next: @escaping (Value) -> Void,
    status: @escaping (DescriptorStatus) -> Void = { _ in }
  ) {
    self.next = next
    self.status = status
  }
}
