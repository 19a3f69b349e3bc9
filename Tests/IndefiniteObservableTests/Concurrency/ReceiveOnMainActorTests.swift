import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Main-actor state that handlers update; only the main actor touches it.
@MainActor private final class Screen {
  var shown: [Int] = []
}

/// `receive(on: MainActor.shared)`: main-actor delivery at the end of a chain, from any thread.
@Suite(.checksLiveResources) struct ReceiveOnMainActorTests {
  @Test @MainActor func valuesSentFromManyThreadsArriveOnTheMainActorInEachSendersOrder() async {
    let source = ThreadSafeSource<Int>()
    let screen = Screen()
    let subscription = source.stream.receive(on: MainActor.shared).subscribe { value in
      MainActor.preconditionIsolated()
      screen.shown.append(value)
    }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask {
          for i in 0..<250 { source.emit(sender * 1000 + i) }
        }
      }
    }
    #expect(await eventually { screen.shown.count == 1000 })
    for sender in 0..<4 {
      let fromSender = screen.shown.filter { $0 / 1000 == sender }
      #expect(fromSender == Array(sender * 1000..<sender * 1000 + 250))
    }
    subscription.unsubscribe()
  }

  @Test @MainActor func deliveryIsAsynchronousEvenFromTheMainActor() async {
    let source = ThreadSafeSource<Int>()
    let screen = Screen()
    let subscription = source.stream.receive(on: MainActor.shared).subscribe {
      screen.shown.append($0)
    }
    source.emit(1)
    #expect(screen.shown.isEmpty)
    #expect(await eventually { screen.shown == [1] })
    subscription.unsubscribe()
  }

  @Test @MainActor func valuesSentDuringSubscriptionArriveAfterItReturns() async {
    let screen = Screen()
    let subscription = ValueObservable<Int> { observer in
      observer.next(1)
      observer.next(2)
      return noopDisconnect
    }.receive(on: MainActor.shared).subscribe { screen.shown.append($0) }
    #expect(screen.shown.isEmpty)
    #expect(await eventually { screen.shown == [1, 2] })
    subscription.unsubscribe()
  }

  @Test @MainActor func unsubscribeDropsQueuedValuesAndDisconnects() async {
    let source = ThreadSafeSource<Int>()
    let screen = Screen()
    let subscription = source.stream.receive(on: MainActor.shared).subscribe {
      screen.shown.append($0)
    }
    // The main actor is busy with this test, so these wait in the queue.
    onAnotherThread {
      for i in 0..<10 { source.emit(i) }
    }
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
    await settle()
    #expect(screen.shown.isEmpty)
  }

  @Test @MainActor func unsubscribeFromTheHandlerStopsTheRestOfTheBatch() async {
    let source = ThreadSafeSource<Int>()
    let screen = Screen()
    let box = MainActorBox()
    box.subscription = source.stream.receive(on: MainActor.shared).subscribe { value in
      screen.shown.append(value)
      if value == 3 { box.subscription?.unsubscribe() }
    }
    onAnotherThread {
      for i in 1...10 { source.emit(i) }
    }
    #expect(await eventually { screen.shown.count >= 3 })
    await settle()
    #expect(screen.shown == [1, 2, 3])
  }

  @Test func theHandlerIsReleasedByUnsubscribe() async {
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    let source = ThreadSafeSource<Int>()
    let subscription: Subscription
    do {
      let captured = Captured()
      weakCaptured = captured
      subscription = source.stream.receive(on: MainActor.shared).subscribe { _ in _ = captured }
    }
    #expect(weakCaptured != nil)
    subscription.unsubscribe()
    #expect(weakCaptured == nil)
  }
}

@MainActor private final class MainActorBox {
  var subscription: Subscription?
}
