import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A stream whose n-th connection sends `scripts[n]` while it connects (nothing once the
/// scripts run out), then the values given to `emit(_:)` while it is the latest connection; it
/// counts its connects and disconnects, and how deeply connects nest.
private final class Attempts<T> {
  private let scripts: [[T]]
  private var latest: (id: Int, next: (T) -> Void)?
  private(set) var connects = 0
  private(set) var disconnects = 0
  private var depth = 0
  private(set) var deepestConnect = 0

  init(_ scripts: [[T]]) { self.scripts = scripts }

  var isConnected: Bool { latest != nil }

  var stream: ValueObservable<T> {
    ValueObservable { observer in
      self.depth += 1
      defer { self.depth -= 1 }
      self.deepestConnect = max(self.deepestConnect, self.depth)
      let id = self.connects
      self.connects += 1
      self.latest = (id, observer.next)
      if id < self.scripts.count {
        for value in self.scripts[id] { observer.next(value) }
      }
      return {
        self.disconnects += 1
        if self.latest?.id == id { self.latest = nil }
      }
    }
  }

  func emit(_ value: T) { latest?.next(value) }
}

@Suite(.checksLiveResources) struct RetryTests {
  typealias Attempt = Result<Int, Failed>

  @Test func aFailureIsDroppedAndTheStreamIsConnectedAgain() {
    let source = Attempts<Attempt>([])
    var seen: [Attempt] = []
    let subscription = source.stream.retry(2).subscribe { seen.append($0) }
    source.emit(.success(1))
    source.emit(.failure(Failed(code: 7)))
    #expect(source.connects == 2 && source.disconnects == 1)
    source.emit(.success(2))
    #expect(seen == [.success(1), .success(2)])
    subscription.unsubscribe()
    #expect(source.disconnects == 2 && !source.isConnected)
  }

  @Test func aFailureAfterTheRetriesInARowIsPassedOnAndASuccessGivesThemBack() {
    let source = Attempts<Attempt>([])
    var seen: [Attempt] = []
    let subscription = source.stream.retry(2).subscribe { seen.append($0) }
    source.emit(.failure(Failed(code: 1)))
    source.emit(.failure(Failed(code: 2)))
    #expect(source.connects == 3)
    source.emit(.failure(Failed(code: 3)))
    source.emit(.failure(Failed(code: 4)))
    #expect(source.connects == 3 && source.isConnected)
    source.emit(.success(5))
    source.emit(.failure(Failed(code: 6)))
    #expect(source.connects == 4)
    source.emit(.success(7))
    #expect(
      seen == [
        .failure(Failed(code: 3)), .failure(Failed(code: 4)), .success(5), .success(7),
      ])
    subscription.unsubscribe()
    #expect(source.disconnects == 4)
  }

  /// Each connection fails as it connects, until the third: the retries run in a loop once
  /// each connect has returned, never inside one.
  @Test func connectionsThatFailWhileConnectingAreMadeAgainInALoop() {
    let source = Attempts<Attempt>([
      [.failure(Failed(code: 1))], [.failure(Failed(code: 2))], [.success(3)],
    ])
    var seen: [Attempt] = []
    let subscription = source.stream.retry(5).subscribe { seen.append($0) }
    #expect(seen == [.success(3)])
    #expect(source.connects == 3 && source.disconnects == 2)
    #expect(source.deepestConnect == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 3)
  }

  @Test func aConnectionThatFailsWhileConnectingPassesOnNothingMore() {
    let source = Attempts<Attempt>([[.failure(Failed(code: 1)), .success(9)], [.success(1)]])
    var seen: [Attempt] = []
    let subscription = source.stream.retry(1).subscribe { seen.append($0) }
    #expect(seen == [.success(1)])
    subscription.unsubscribe()
  }

  @Test func aFailureWhileConnectingOnceTheRetriesAreSpentIsPassedOn() {
    let source = Attempts<Attempt>([[.failure(Failed(code: 1))], [.failure(Failed(code: 2))]])
    var seen: [Attempt] = []
    let subscription = source.stream.retry(1).subscribe { seen.append($0) }
    #expect(seen == [.failure(Failed(code: 2))])
    #expect(source.connects == 2 && source.isConnected)
    subscription.unsubscribe()
    #expect(source.disconnects == 2)
  }

  @Test func aRetryFromADeliveryConnectsAgainBeforeTheDeliveryReturns() {
    let source = Attempts<Attempt>([[], [.success(2)]])
    var seen: [Attempt] = []
    let subscription = source.stream.retry(1).subscribe { seen.append($0) }
    source.emit(.failure(Failed(code: 1)))
    #expect(seen == [.success(2)])
    #expect(source.connects == 2 && source.disconnects == 1)
    subscription.unsubscribe()
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = Attempts<Attempt>([])
    var seen: [Attempt] = []
    var subscription: Subscription?
    subscription = source.stream.retry(3).subscribe { result in
      seen.append(result)
      subscription?.unsubscribe()
    }
    source.emit(.success(1))
    source.emit(.failure(Failed(code: 2)))
    source.emit(.success(3))
    #expect(seen == [.success(1)])
    #expect(source.connects == 1 && source.disconnects == 1 && !source.isConnected)
  }

  /// A failure makes the stream connect again; the new connection sends a value as it
  /// connects, at which the subscriber ends the subscription, then a failure that would retry:
  /// the connection is disconnected once its connect returns, and not made again.
  @Test func unsubscribingWhileConnectingAgainStopsTheRetries() {
    let source = Attempts<Attempt>([
      [], [.success(3), .failure(Failed(code: 4))], [.success(5)],
    ])
    var seen: [Attempt] = []
    var subscription: Subscription?
    subscription = source.stream.retry(3).subscribe { result in
      seen.append(result)
      subscription?.unsubscribe()
    }
    source.emit(.failure(Failed(code: 2)))
    #expect(seen == [.success(3)])
    #expect(source.connects == 2 && source.disconnects == 2 && !source.isConnected)
  }

  @Test func zeroRetriesIsTheStreamItself() {
    let source = Attempts<Attempt>([])
    let stream = source.stream
    #expect(stream.retry(0) === stream)
    #expect(stream.retry(-1) === stream)
  }
}
