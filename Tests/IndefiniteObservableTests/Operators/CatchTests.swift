import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct CatchTests {
  @Test func aFailureConnectsTheHandlersStreamUntilTheNextValueOfTheUpstream() {
    let source = CallbackSource<Result<Int, Failed>>()
    let fallback = CallbackSource<Int>()
    var handled: [Failed] = []
    var seen: [Int] = []
    let subscription = source.stream.catch { failure in
      handled.append(failure)
      return fallback.stream
    }.subscribe { seen.append($0) }
    source.emit(.success(1))
    fallback.emit(99)  // not connected yet
    source.emit(.failure(Failed(code: 7)))
    #expect(fallback.connects == 1)
    fallback.emit(100)
    fallback.emit(101)
    source.emit(.success(2))
    #expect(fallback.disconnects == 1 && fallback.observerCount == 0)
    fallback.emit(102)
    #expect(seen == [1, 100, 101, 2])
    #expect(handled == [Failed(code: 7)])
    subscription.unsubscribe()
    #expect(source.observerCount == 0 && fallback.disconnects == 1)
  }

  @Test func aSecondFailureDisconnectsTheFirstHandlersStreamBeforeConnectingTheNext() {
    let source = CallbackSource<Result<Int, Failed>>()
    let fallbacks = [CallbackSource<Int>(), CallbackSource<Int>()]
    var firstObserversWhenSecondConnected: Int?
    var seen: [Int] = []
    let subscription = source.stream.catch { failure in
      if failure.code == 1 { return fallbacks[0].stream }
      return ValueObservable { observer in
        firstObserversWhenSecondConnected = fallbacks[0].observerCount
        return fallbacks[1].stream.subscribe(observer: observer).unsubscribe
      }
    }.subscribe { seen.append($0) }
    source.emit(.failure(Failed(code: 1)))
    fallbacks[0].emit(10)
    source.emit(.failure(Failed(code: 2)))
    fallbacks[0].emit(11)
    fallbacks[1].emit(20)
    #expect(seen == [10, 20])
    #expect(firstObserversWhenSecondConnected == 0)
    #expect(fallbacks[0].disconnects == 1 && fallbacks[1].disconnects == 0)
    subscription.unsubscribe()
    #expect(fallbacks[1].disconnects == 1 && source.observerCount == 0)
  }

  @Test func aJustFromTheHandlerReplacesEachFailureWithAValue() {
    let source = CallbackSource<Result<Int, Failed>>()
    var seen: [Int] = []
    let subscription = source.stream.catch { Just(-$0.code) }.subscribe { seen.append($0) }
    source.emit(.success(1))
    source.emit(.failure(Failed(code: 7)))
    source.emit(.success(2))
    source.emit(.failure(Failed(code: 8)))
    #expect(seen == [1, -7, 2, -8])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  /// The subscriber answers the handler's first value by making the upstream deliver again,
  /// while the handler's stream is still sending as it connects: its later values are dropped,
  /// and it is disconnected as soon as its connect returns.
  @Test func noValueOfTheHandlersStreamPassesOnceTheUpstreamHasDeliveredAgain() {
    let source = CallbackSource<Result<Int, Failed>>()
    let fallback = SynchronousSource([100, 101, 102])
    var seen: [Int] = []
    let subscription = source.stream.catch { _ in fallback.stream }.subscribe { value in
      seen.append(value)
      if value == 100 { source.emit(.success(5)) }
    }
    source.emit(.failure(Failed(code: 7)))
    #expect(seen == [100, 5])
    #expect(fallback.connects == 1 && fallback.disconnects == 1)
    subscription.unsubscribe()
    #expect(fallback.disconnects == 1)
  }

  @Test func unsubscribeDisconnectsTheHandlersStreamBeforeTheUpstream() {
    let source = CallbackSource<Result<Int, Failed>>()
    var order: [String] = []
    var upstreamObserversWhenFallbackEnded: Int?
    let upstream = ValueObservable<Result<Int, Failed>> { observer in
      let subscription = source.stream.subscribe(observer: observer)
      return {
        order.append("upstream")
        subscription.unsubscribe()
      }
    }
    let fallback = ValueObservable<Int> { _ in
      return {
        order.append("fallback")
        upstreamObserversWhenFallbackEnded = source.observerCount
      }
    }
    let subscription = upstream.catch { _ in fallback }.subscribe { _ in }
    source.emit(.failure(Failed(code: 7)))
    subscription.unsubscribe()
    #expect(order == ["fallback", "upstream"])
    #expect(upstreamObserversWhenFallbackEnded == 1)
  }

  @Test func unsubscribingFromInsideADeliveryOfTheHandlersStreamDisconnectsBoth() {
    let source = CallbackSource<Result<Int, Failed>>()
    let fallback = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.catch { _ in fallback.stream }.subscribe { value in
      seen.append(value)
      if value == 100 { subscription?.unsubscribe() }
    }
    source.emit(.failure(Failed(code: 7)))
    fallback.emit(100)
    fallback.emit(101)
    source.emit(.success(1))
    #expect(seen == [100])
    #expect(fallback.disconnects == 1 && fallback.observerCount == 0)
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func eachSubscriptionConnectsItsOwnHandlersStreams() {
    let source = CallbackSource<Result<Int, Failed>>()
    let fallback = CallbackSource<Int>()
    let caught = source.stream.catch { _ in fallback.stream }
    var first: [Int] = []
    var second: [Int] = []
    let early = caught.subscribe { first.append($0) }
    let late = caught.subscribe { second.append($0) }
    source.emit(.failure(Failed(code: 7)))
    #expect(fallback.connects == 2)
    fallback.emit(100)
    #expect(first == [100] && second == [100])
    early.unsubscribe()
    fallback.emit(101)
    #expect(first == [100] && second == [100, 101])
    late.unsubscribe()
    #expect(fallback.disconnects == 2 && source.observerCount == 0)
  }
}
