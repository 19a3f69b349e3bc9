import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `merge()` of a sequence of streams.
@Suite(.checksLiveResources) struct SequenceMergeTests {
  @Test func passesOnEveryStreamsValuesInArrivalOrder() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    var seen: [Int] = []
    let subscription = sources.map(\.stream).merge().subscribe { seen.append($0) }
    sources[2].emit(1)
    sources[0].emit(2)
    sources[1].emit(3)
    sources[2].emit(4)
    #expect(seen == [1, 2, 3, 4])
    subscription.unsubscribe()
  }

  @Test func subscribesToTheStreamsInTheSequencesOrder() {
    var seen: [Int] = []
    let streams = [SynchronousSource([1, 2]), SynchronousSource([3]), SynchronousSource([4])]
    streams.map(\.stream).merge().subscribe { seen.append($0) }
    #expect(seen == [1, 2, 3, 4])
  }

  @Test func mergesAnArrayOfEmitters() {
    let emitters = [Emitter<Int>(), Emitter<Int>()]
    var seen: [Int] = []
    let subscription = emitters.merge().subscribe { seen.append($0) }
    emitters[1].send(1)
    emitters[0].send(2)
    #expect(seen == [1, 2])
    subscription.unsubscribe()
    #expect(emitters.map(\.subscriberCount) == [0, 0])
  }

  @Test func anEmptySequenceNeverDelivers() {
    var seen: [Int] = []
    let subscription = [ValueObservable<Int>]().merge().subscribe { seen.append($0) }
    subscription.unsubscribe()
    #expect(seen == [])
  }

  @Test func unsubscribeDisconnectsEveryStream() {
    let sources = (0..<3).map { _ in CallbackSource<Int>() }
    let subscription = sources.map(\.stream).merge().subscribe { _ in }
    #expect(sources.map(\.observerCount) == [1, 1, 1])
    subscription.unsubscribe()
    #expect(sources.map(\.disconnects) == [1, 1, 1])
    #expect(sources.map(\.observerCount) == [0, 0, 0])
  }
}
