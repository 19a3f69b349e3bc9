import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct DropFirstTests {
  @Test func dropsTheFirstValueByDefault() {
    var seen: [Int] = []
    SynchronousSource([1, 2, 3]).stream.dropFirst().subscribe { seen.append($0) }
    #expect(seen == [2, 3])
  }

  @Test func dropsTheGivenCountThenPassesEveryValue() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.dropFirst(2).subscribe { seen.append($0) }
    for value in 1...5 { source.emit(value) }
    #expect(seen == [3, 4, 5])
    subscription.unsubscribe()
  }

  @Test func eachSubscriptionCountsItsOwnValues() {
    let source = CallbackSource<Int>()
    let stream = source.stream.dropFirst(2)
    var first: [Int] = []
    var second: [Int] = []
    let early = stream.subscribe { first.append($0) }
    source.emit(1)
    source.emit(2)
    let late = stream.subscribe { second.append($0) }
    source.emit(3)
    source.emit(4)
    source.emit(5)
    #expect(first == [3, 4, 5])
    #expect(second == [5])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test func dropsTheCurrentValueThatAStreamReplaysOnSubscribe() {
    let setting = CurrentValue("light")
    var changes: [String] = []
    let subscription = setting.dropFirst().subscribe { changes.append($0) }
    setting.value = "dark"
    #expect(changes == ["dark"])
    subscription.unsubscribe()
  }

  @Test(arguments: [0, -3]) func aCountOfZeroOrLessDropsNothing(count: Int) {
    var seen: [Int] = []
    SynchronousSource([1, 2]).stream.dropFirst(count).subscribe { seen.append($0) }
    #expect(seen == [1, 2])
  }

  @Test func unsubscribeDisconnectsTheSource() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.dropFirst().subscribe { seen.append($0) }
    source.emit(1)
    source.emit(2)
    subscription.unsubscribe()
    source.emit(3)
    #expect(seen == [2])
    #expect(source.disconnects == 1)
    #expect(source.observerCount == 0)
  }
}
