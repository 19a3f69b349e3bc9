import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The memory rules of 4.0: observables are plain values with no hidden owners.
@Suite(.checksLiveResources) struct MemoryTests {
  private func makeFive() -> ValueObservable<Int> {
    ValueObservable { observer in
      observer.next(5)
      return noopDisconnect
    }
  }

  @Test func observableWithNoOwnerIsReleased() {
    weak var weakObservable: ValueObservable<Int>?
    do {
      let observable = makeFive()
      weakObservable = observable
    }
    #expect(weakObservable == nil)
  }

  @Test func subscribedObservableWhoseConnectKeepsNothingIsReleased() {
    weak var weakObservable: ValueObservable<Int>?
    do {
      let observable = makeFive()
      weakObservable = observable
      observable.subscribe { _ in }
    }
    #expect(weakObservable == nil)
  }

  @Test func subscribedChainWhoseConnectKeepsNothingIsReleased() {
    weak var weakObservable: ValueObservable<Int>?
    do {
      let observable = makeFive()
      weakObservable = observable
      observable.map { $0 * $0 }.filter { $0 > 0 }.subscribe { _ in }
    }
    #expect(weakObservable == nil)
  }

  @Test func downstreamKeepsUpstreamAlive() {
    weak var weakObservable: ValueObservable<Int>?
    let downstream: ValueObservable<Int>
    do {
      let observable = makeFive()
      weakObservable = observable
      downstream = observable.map { $0 + 1 }
    }
    #expect(weakObservable != nil)
    var seen: [Int] = []
    downstream.subscribe { seen.append($0) }
    #expect(seen == [6])
  }

  @Test func observerIsNotRetainedWhenTheSourceDoesNotKeepIt() {
    weak var weakObserver: ValueObserver<Int>?
    var didDisconnect = false
    do {
      let observable = ValueObservable<Int> { observer in
        weakObserver = observer
        observer.next(10)
        return { didDisconnect = true }
      }
      observable.subscribe { _ in }
    }
    #expect(weakObserver == nil)
    #expect(!didDisconnect)
  }

  @Test func sourceThatKeepsTheObserverKeepsItUntilUnsubscribe() {
    let source = CallbackSource<Int>()
    final class Witness {}
    weak var weakWitness: Witness?
    let subscription: Subscription
    do {
      let witness = Witness()
      weakWitness = witness
      subscription = source.stream.map { _ in witness }.subscribe { _ in }
    }
    #expect(weakWitness != nil)
    subscription.unsubscribe()
    #expect(weakWitness == nil)
  }

  @Test func closureCapturingLocalMutableStateCompilesAndWorks() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.subscribe { seen.append($0) }
    source.emit(1)
    source.emit(2)
    subscription.unsubscribe()
    source.emit(3)
    #expect(seen == [1, 2])
  }
}
