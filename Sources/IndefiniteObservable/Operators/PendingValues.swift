/// A first-in, first-out queue of values waiting for a partner, for `zip`: a ring buffer that
/// allocates only when it grows, so a queue that stays short allocates nothing per value.
///
/// Its storage keeps its largest size until the queue itself goes; a value taken out is
/// released at once.
@usableFromInline
struct PendingValues<Element> {
  @usableFromInline var slots: ContiguousArray<Element?> = []
  /// Where the oldest value is, when there is one.
  @usableFromInline var head = 0
  /// How many values are waiting.
  @usableFromInline var count = 0

  /// An empty queue.
  @inlinable
  init() {}

  /// Adds `value` after the others.
  @inlinable
  mutating func append(_ value: Element) {
    if count == slots.count { grow() }
    var index = head + count
    if index >= slots.count { index -= slots.count }
    slots[index] = value
    count += 1
  }

  /// Takes out the oldest value; nil when none is waiting.
  @inlinable
  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let value = slots[head].take()
    head += 1
    if head == slots.count { head = 0 }
    count -= 1
    return value
  }

  /// Doubles the storage (at least 4 slots), keeping the values in order from index 0.
  @usableFromInline
  mutating func grow() {
    let capacity = Swift.max(4, slots.count * 2)
    var grown = ContiguousArray<Element?>()
    grown.reserveCapacity(capacity)
    for offset in 0..<count { grown.append(slots[(head + offset) % slots.count].take()) }
    while grown.count < capacity { grown.append(nil) }
    slots = grown
    head = 0
  }
}
