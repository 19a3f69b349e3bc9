import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct ConnectableObservableTests {
  @Test func subscribingDoesNotConnectAndConnectDeliversToEverySubscriber() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.makeConnectable()
    var seen: [String] = []
    let a = connectable.subscribe { seen.append("a\($0)") }
    let b = connectable.subscribe { seen.append("b\($0)") }
    source.emit(0)
    #expect(source.connects == 0)
    let connection = connectable.connect()
    #expect(source.connects == 1)
    source.emit(1)
    #expect(seen == ["a1", "b1"])
    connection.unsubscribe()
    #expect(source.observerCount == 0)
    source.emit(2)
    #expect(seen == ["a1", "b1"])
    a.unsubscribe()
    b.unsubscribe()
  }

  @Test func theSubscribersReceiveWhatTheUpstreamSendsWhileConnecting() {
    let source = SynchronousSource([1, 2])
    let connectable = source.stream.makeConnectable()
    var seen: [Int] = []
    let subscription = connectable.subscribe { seen.append($0) }
    let connection = connectable.connect()
    #expect(seen == [1, 2])
    connection.unsubscribe()
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
  }

  @Test func connectingAgainWhileConnectedConnectsNothingMore() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.makeConnectable()
    var seen: [Int] = []
    let subscription = connectable.subscribe { seen.append($0) }
    let first = connectable.connect()
    let second = connectable.connect()
    source.emit(1)
    #expect(source.connects == 1)
    #expect(seen == [1])
    second.unsubscribe()  // Ends the one connection.
    #expect(source.observerCount == 0)
    first.unsubscribe()
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
  }

  @Test func aConnectionEndedCanBeMadeAgainAndStartsAfresh() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.scan(0, +).makeConnectable()
    var seen: [Int] = []
    let subscription = connectable.subscribe { seen.append($0) }
    let first = connectable.connect()
    source.emit(1)
    source.emit(2)
    first.unsubscribe()
    let second = connectable.connect()
    source.emit(5)
    #expect(seen == [1, 3, 5])
    #expect(source.connects == 2)
    first.unsubscribe()  // An ended connection's subscription ends nothing else.
    #expect(source.observerCount == 1)
    second.unsubscribe()
    subscription.unsubscribe()
  }

  @Test func aSubscriberThatUnsubscribesDuringADeliveryReceivesNothingMore() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.makeConnectable()
    var seen: [String] = []
    var subscription: Subscription?
    subscription = connectable.subscribe { value in
      seen.append("leaving \(value)")
      subscription?.unsubscribe()
    }
    let staying = connectable.subscribe { seen.append("staying \($0)") }
    let connection = connectable.connect()
    source.emit(1)
    source.emit(2)
    #expect(seen == ["leaving 1", "staying 1", "staying 2"])
    #expect(source.observerCount == 1)  // The connection is not the subscribers' to end.
    connection.unsubscribe()
    staying.unsubscribe()
  }

  @Test func theConnectionMayBeEndedFromInsideADelivery() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.makeConnectable()
    var seen: [Int] = []
    var connection: Subscription?
    let subscription = connectable.subscribe { value in
      seen.append(value)
      connection?.unsubscribe()
    }
    connection = connectable.connect()
    source.emit(1)
    source.emit(2)
    #expect(seen == [1])
    #expect(source.observerCount == 0)
    subscription.unsubscribe()
  }

  /// The connection ends while the upstream is still connecting (here from inside its connect,
  /// through a second `connect()`, which returns the same connection): the upstream is
  /// disconnected as soon as its connect returns, never left connected.
  @Test func aConnectionEndedWhileTheUpstreamConnectsIsDisconnectedOnceItHasConnected() {
    var connectable: ConnectableObservable<Int>?
    var connects = 0
    var disconnects = 0
    let upstream = ValueObservable<Int> { observer in
      connects += 1
      connectable?.connect().unsubscribe()
      observer.next(1)
      return { disconnects += 1 }
    }
    connectable = upstream.makeConnectable()
    var seen: [Int] = []
    let subscription = connectable?.subscribe { seen.append($0) }
    let connection = connectable?.connect()
    #expect(connects == 1 && disconnects == 1)
    #expect(seen == [1])
    connection?.unsubscribe()
    #expect(disconnects == 1)
    let again = connectable?.connect()  // A new connection: the ended one was forgotten.
    #expect(connects == 2)
    again?.unsubscribe()
    subscription?.unsubscribe()
    connectable = nil  // The upstream's closure holds `connectable`, which holds the upstream.
  }

  @Test func autoconnectConnectsOnTheFirstSubscriberAndDisconnectsAfterTheLast() {
    let source = CallbackSource<Int>()
    let shared = source.stream.makeConnectable().autoconnect()
    var seen: [String] = []
    let a = shared.subscribe { seen.append("a\($0)") }
    #expect(source.connects == 1)
    let b = shared.subscribe { seen.append("b\($0)") }
    #expect(source.connects == 1)
    source.emit(1)
    a.unsubscribe()
    #expect(source.observerCount == 1)
    b.unsubscribe()
    #expect(source.observerCount == 0)
    let c = shared.subscribe { seen.append("c\($0)") }
    source.emit(2)
    #expect(seen == ["a1", "b1", "c2"])
    #expect(source.connects == 2)
    c.unsubscribe()
    #expect(source.disconnects == 2)
  }

  @Test func autoconnectsFirstSubscriberReceivesWhatTheUpstreamSendsWhileConnecting() {
    let source = SynchronousSource([1, 2])
    let shared = source.stream.makeConnectable().autoconnect()
    var seen: [Int] = []
    let subscription = shared.subscribe { seen.append($0) }
    #expect(seen == [1, 2])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func autoconnectLeavesAConnectionMadeByConnectToItsOwner() {
    let source = CallbackSource<Int>()
    let connectable = source.stream.makeConnectable()
    let connection = connectable.connect()
    let shared = connectable.autoconnect()
    var seen: [Int] = []
    let subscription = shared.subscribe { seen.append($0) }
    source.emit(1)
    subscription.unsubscribe()
    #expect(seen == [1])
    #expect(source.observerCount == 1 && source.connects == 1)
    connection.unsubscribe()
    #expect(source.observerCount == 0)
  }

  @Test func autoconnectsLastSubscriberLeavingFromInsideADeliveryDisconnects() {
    let source = CallbackSource<Int>()
    let shared = source.stream.makeConnectable().autoconnect()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = shared.subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    source.emit(1)
    source.emit(2)
    #expect(seen == [1])
    #expect(source.observerCount == 0 && source.disconnects == 1)
  }

  @Test func valuesAreNotKept() {
    let source = CallbackSource<Witness>()
    let connectable = source.stream.makeConnectable()
    let subscription = connectable.subscribe { _ in }
    let connection = connectable.connect()
    weak var sent: Witness?
    do {
      let witness = Witness()
      sent = witness
      source.emit(witness)
    }
    #expect(sent == nil)
    connection.unsubscribe()
    subscription.unsubscribe()
  }

  /// Connections are ended on one thread while another connects: every upstream connection
  /// made is disconnected exactly once, none left connected.
  @Test func connectionsEndedOnAnotherThreadAllEnd() {
    let source = ThreadSafeSource<Int>()
    let connectable = UncheckedConnectable(source.stream.makeConnectable())
    let connections = Recorder<Subscription>()
    runOnThreads(2) { thread in
      for _ in 0..<500 {
        if thread == 0 {
          connections.append(connectable.value.connect())
        } else {
          for connection in connections.values { connection.unsubscribe() }
        }
      }
    }
    for connection in connections.values { connection.unsubscribe() }
    #expect(source.observerCount == 0)
    #expect(source.connects == source.disconnects)
  }
}

/// Lets a test hand a connectable to two threads: ending and making connections from any thread
/// is what is under test; the connectable is not `Sendable` because its stream is not.
private struct UncheckedConnectable<T>: @unchecked Sendable {
  let value: ConnectableObservable<T>
  init(_ value: ConnectableObservable<T>) { self.value = value }
}
