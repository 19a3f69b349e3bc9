import IndefiniteObservable
import Testing

@Suite struct PendingValuesTests {
  @Test func anEmptyQueueHasNothingToGive() {
    var queue = PendingValues<Int>()
    #expect(queue.isEmpty)
    #expect(queue.count == 0)
    #expect(queue.first == nil)
    #expect(queue.popFirst() == nil)
  }

  @Test func valuesComeOutInTheOrderTheyWentIn() {
    var queue = PendingValues<String>()
    queue.append("a")
    queue.append("b")
    #expect(queue.first == "a")
    #expect(queue.count == 2)
    #expect(queue.popFirst() == "a")
    #expect(queue.first == "b")
    queue.append("c")
    #expect(queue.popFirst() == "b")
    #expect(queue.popFirst() == "c")
    #expect(queue.isEmpty)
  }

  /// Values taken out while others come in move the oldest one around the storage; the storage
  /// grows while the values wrap around its end. The order holds through both.
  @Test func theOrderHoldsWhileTheQueueWrapsAroundAndGrows() {
    var queue = PendingValues<Int>()
    var expected: [Int] = []
    var taken: [Int] = []
    var next = 0
    for round in 0..<50 {
      for _ in 0..<(round % 7 + 1) {
        queue.append(next)
        expected.append(next)
        next += 1
      }
      for _ in 0..<(round % 5) {
        if let value = queue.popFirst() { taken.append(value) }
      }
      #expect(queue.count == expected.count - taken.count)
      #expect(queue.first == expected.dropFirst(taken.count).first)
    }
    while let value = queue.popFirst() { taken.append(value) }
    #expect(taken == expected)
  }

  @Test func aValueTakenOutIsReleasedAtOnce() {
    final class Token {}
    var queue = PendingValues<Token>()
    weak var first: Token?
    do {
      let token = Token()
      first = token
      queue.append(token)
      queue.append(Token())
    }
    #expect(first != nil)
    _ = queue.popFirst()
    #expect(first == nil)
    #expect(queue.count == 1)
  }
}
