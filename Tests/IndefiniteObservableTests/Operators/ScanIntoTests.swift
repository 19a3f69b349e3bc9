import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct ScanIntoTests {
  @Test func updatesTheResultInPlaceAndPassesItOn() {
    var seen: [[String: Int]] = []
    SynchronousSource(["to", "be", "to"]).stream
      .scan(into: [String: Int]()) { counts, word in counts[word, default: 0] += 1 }
      .subscribe { seen.append($0) }
    #expect(seen == [["to": 1], ["to": 1, "be": 1], ["to": 2, "be": 1]])
  }

  /// The result is updated in place for the next value; one the subscriber kept must not change.
  @Test func aResultTheSubscriberKeepsDoesNotChangeLater() {
    let source = CallbackSource<Int>()
    var kept: [[Int]] = []
    let subscription = source.stream.scan(into: [Int]()) { $0.append($1) }
      .subscribe { kept.append($0) }
    for value in 1...3 { source.emit(value) }
    #expect(kept == [[1], [1, 2], [1, 2, 3]])
    subscription.unsubscribe()
  }

  /// A subscriber that lets the result go costs no copy: every update finds the same storage.
  @Test func aResultTheSubscriberLetsGoIsUpdatedWithoutACopy() {
    let source = CallbackSource<Int>()
    var initial: [Int] = []
    initial.reserveCapacity(16)
    var storage: Set<UnsafePointer<Int>?> = []
    var counts: [Int] = []
    let subscription = source.stream.scan(into: initial) { values, value in
      values.append(value)
      storage.insert(values.withUnsafeBufferPointer { $0.baseAddress })
    }.subscribe { counts.append($0.count) }
    for value in 1...5 { source.emit(value) }
    #expect(counts == [1, 2, 3, 4, 5])
    #expect(storage.count == 1)
    subscription.unsubscribe()
  }

  @Test func eachSubscriptionStartsFromTheInitialResult() {
    let source = CallbackSource<Int>()
    let totals = source.stream.scan(into: 10) { $0 += $1 }
    var first: [Int] = []
    var second: [Int] = []
    let early = totals.subscribe { first.append($0) }
    source.emit(1)
    let late = totals.subscribe { second.append($0) }
    source.emit(2)
    #expect(first == [11, 13])
    #expect(second == [12])
    early.unsubscribe()
    late.unsubscribe()
    #expect(source.connects == 2 && source.disconnects == 2)
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var updates = 0
    var subscription: Subscription?
    subscription = source.stream.scan(into: 0) { total, value in
      updates += 1
      total += value
    }.subscribe { total in
      seen.append(total)
      subscription?.unsubscribe()
    }
    for value in 1...3 { source.emit(value) }
    #expect(seen == [1])
    #expect(updates == 1)
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  /// The subscriber may make the stream deliver again: the update that delivery makes starts
  /// from the result it was handed.
  @Test func aValueSentFromInsideADeliveryAccumulatesAfterIt() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.scan(into: 0) { $0 += $1 }.subscribe { total in
      seen.append(total)
      if total == 1 { source.emit(10) }
    }
    source.emit(1)
    source.emit(100)
    #expect(seen == [1, 11, 111])
    subscription.unsubscribe()
  }
}
