/// A first-in, first-out queue of values waiting their turn: a ring buffer that allocates only
/// when it grows, so a queue that stays short allocates nothing per value.
///
/// The operators that hold values back keep them here: `zip`, for values waiting for a partner,
/// and `delay`, for values waiting for their time. Use it the same way in an operator of your own.
///
/// - Threading: a value type with no lock of its own; keep it where one isolation or one lock
///   guards it. It is `Sendable` when its elements are.
/// - Lifetime: a value taken out is released at once. The storage doubles when it is full (from
///   4 slots) and keeps its largest size until the queue itself goes.
public struct PendingValues<Element> {
  @usableFromInline var slots: ContiguousArray<Element?> = []
  /// Where the oldest value is, when there is one.
  @usableFromInline var head = 0
  /// How many values are waiting.
  @usableFromInline var waiting = 0

  /// An empty queue; it allocates nothing until the first value is appended.
  @inlinable
  public init() {}

  /// How many values are waiting.
  @inlinable
  public var count: Int { waiting }

  /// Whether no value is waiting.
  @inlinable
  public var isEmpty: Bool { waiting == 0 }

  /// The oldest value, left in the queue; nil when none is waiting.
  @inlinable
  public var first: Element? {
    waiting > 0 ? slots[head] : nil
  }

  /// Adds `value` after the others. Allocates only when the storage is full.
  @inlinable
  public mutating func append(_ value: Element) {
    if waiting == slots.count { grow() }
    var index = head + waiting
    if index >= slots.count { index -= slots.count }
    slots[index] = value
    waiting += 1
  }

  /// Takes out the oldest value; nil when none is waiting.
  @inlinable
  public mutating func popFirst() -> Element? {
    guard waiting > 0 else { return nil }
    let value = slots[head].take()
    head += 1
    if head == slots.count { head = 0 }
    waiting -= 1
    return value
  }

  /// The waiting values, oldest first, left waiting.
  public var elements: [Element] {
    (0..<waiting).map { slots[(head + $0) % slots.count]! }
  }

  /// Doubles the storage (at least 4 slots), keeping the values in order from index 0.
  @usableFromInline
  mutating func grow() {
    let capacity = Swift.max(4, slots.count * 2)
    var grown = ContiguousArray<Element?>()
    grown.reserveCapacity(capacity)
    for offset in 0..<waiting { grown.append(slots[(head + offset) % slots.count].take()) }
    while grown.count < capacity { grown.append(nil) }
    slots = grown
    head = 0
  }
}

extension PendingValues: Sendable where Element: Sendable {}
