import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A failure with a code, so that tests can say which failure went where.
struct Failed: Error, Equatable {
  let code: Int
}

@Suite(.checksLiveResources) struct ResultStreamTests {
  @Test func replaceErrorReplacesEachFailureAndTheStreamGoesOn() {
    let source = CallbackSource<Result<Int, Failed>>()
    var seen: [Int] = []
    let subscription = source.stream.replaceError(with: -1).subscribe { seen.append($0) }
    source.emit(.success(1))
    source.emit(.failure(Failed(code: 7)))
    source.emit(.success(2))
    source.emit(.failure(Failed(code: 8)))
    #expect(seen == [1, -1, 2, -1])
    #expect(source.disconnects == 0)
    subscription.unsubscribe()
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func successesAndFailuresSplitTheResultsEachOnAConnectionOfItsOwn() {
    let source = CallbackSource<Result<Int, Failed>>()
    var values: [Int] = []
    var errors: [Failed] = []
    let takingValues = source.stream.successes().subscribe { values.append($0) }
    let takingErrors = source.stream.failures().subscribe { errors.append($0) }
    #expect(source.connects == 2)
    source.emit(.success(1))
    source.emit(.failure(Failed(code: 7)))
    source.emit(.success(2))
    #expect(values == [1, 2])
    #expect(errors == [Failed(code: 7)])
    takingValues.unsubscribe()
    source.emit(.failure(Failed(code: 8)))
    #expect(errors == [Failed(code: 7), Failed(code: 8)])
    takingErrors.unsubscribe()
    #expect(source.disconnects == 2 && source.observerCount == 0)
  }

  @Test func unsubscribingFromInsideADeliveryOfAReplacedFailureEndsTheStream() {
    let source = CallbackSource<Result<Int, Failed>>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.replaceError(with: -1).subscribe { value in
      seen.append(value)
      if value == -1 { subscription?.unsubscribe() }
    }
    source.emit(.success(1))
    source.emit(.failure(Failed(code: 7)))
    source.emit(.success(2))
    #expect(seen == [1, -1])
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func failuresUnsubscribedFromInsideADeliveryDeliversNoMore() {
    let source = CallbackSource<Result<Int, Failed>>()
    var errors: [Failed] = []
    var subscription: Subscription?
    subscription = source.stream.failures().subscribe { failure in
      errors.append(failure)
      subscription?.unsubscribe()
    }
    source.emit(.failure(Failed(code: 1)))
    source.emit(.failure(Failed(code: 2)))
    #expect(errors == [Failed(code: 1)])
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }
}
