import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `combineLatest()` of a sequence of streams.
@Suite(.checksLiveResources) struct SequenceCombineLatestTests {
  @Test func waitsForEveryStreamThenPassesTheLatestInTheSequencesOrder() {
    let sources = (0..<4).map { _ in CallbackSource<Int>() }
    var seen: [[Int]] = []
    let subscription = sources.map(\.stream).combineLatest().subscribe { seen.append($0) }
    sources[3].emit(3)
    sources[1].emit(1)
    sources[1].emit(11)
    sources[0].emit(0)
    #expect(seen == [])
    sources[2].emit(2)
    sources[1].emit(21)
    sources[3].emit(33)
    #expect(seen == [[0, 11, 2, 3], [0, 21, 2, 3], [0, 21, 2, 33]])
    subscription.unsubscribe()
  }

  /// The array is updated in place for the next value; one the subscriber kept must not change.
  @Test func anArrayTheSubscriberKeepsDoesNotChangeLater() {
    let sources = (0..<2).map { _ in CallbackSource<Int>() }
    var kept: [[Int]] = []
    let subscription = sources.map(\.stream).combineLatest().subscribe { kept.append($0) }
    sources[0].emit(1)
    sources[1].emit(2)
    sources[0].emit(3)
    sources[1].emit(4)
    #expect(kept == [[1, 2], [3, 2], [3, 4]])
    subscription.unsubscribe()
  }

  @Test func combinesAnArrayOfCurrentValues() {
    let fields = [CurrentValue("Ada"), CurrentValue("")]
    var seen: [[String]] = []
    let subscription = fields.combineLatest().subscribe { seen.append($0) }
    fields[1].value = "Lovelace"
    #expect(seen == [["Ada", ""], ["Ada", "Lovelace"]])
    subscription.unsubscribe()
  }

  @Test func aSingleStreamGivesOneElementArrays() {
    var seen: [[Int]] = []
    [SynchronousSource([1, 2]).stream].combineLatest().subscribe { seen.append($0) }
    #expect(seen == [[1], [2]])
  }

  @Test func anEmptySequenceNeverDelivers() {
    var seen: [[Int]] = []
    let subscription = [ValueObservable<Int>]().combineLatest().subscribe { seen.append($0) }
    subscription.unsubscribe()
    #expect(seen == [])
  }

  @Test func streamsThatSendWhileConnectingCombineOnceAllHaveSent() {
    var seen: [[Int]] = []
    [SynchronousSource([1, 2]).stream, SynchronousSource([10, 20]).stream].combineLatest()
      .subscribe { seen.append($0) }
    #expect(seen == [[2, 10], [2, 20]])
  }

  @Test func unsubscribeDisconnectsEveryStream() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    let subscription = sources.map(\.stream).combineLatest().subscribe { _ in }
    #expect(sources.map(\.observerCount) == [1, 1, 1])
    subscription.unsubscribe()
    #expect(sources.map(\.disconnects) == [1, 1, 1])
    #expect(sources.map(\.observerCount) == [0, 0, 0])
  }

  @Test func eachSubscriptionKeepsItsOwnLatestValues() {
    let sources = (0..<2).map { _ in CallbackSource<Int>() }
    let latest = sources.map(\.stream).combineLatest()
    var first: [[Int]] = []
    var second: [[Int]] = []
    let early = latest.subscribe { first.append($0) }
    sources[0].emit(1)
    sources[1].emit(2)
    let late = latest.subscribe { second.append($0) }
    sources[0].emit(3)
    sources[1].emit(4)
    #expect(first == [[1, 2], [3, 2], [3, 4]])
    #expect(second == [[3, 4]])
    early.unsubscribe()
    late.unsubscribe()
  }
}
