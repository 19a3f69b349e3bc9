import IndefiniteObservable
import Multicast
import TestSupport
import Testing

private struct Boom: Error, Equatable {}

/// A sequence whose every `next()` sleeps for a minute: only cancellation ends it, by throwing.
private struct Sleepy: AsyncSequence, Sendable {
  typealias Element = Int
  struct AsyncIterator: AsyncIteratorProtocol {
    mutating func next() async throws -> Int? {
      try await Task.sleep(for: .seconds(60))
      return 0
    }
  }
  func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// A multi-pass sequence: every iterator yields 1, 2, 3.
private struct OneTwoThree: AsyncSequence, Sendable {
  struct AsyncIterator: AsyncIteratorProtocol {
    var next = 1
    mutating func next() async -> Int? {
      guard next <= 3 else { return nil }
      defer { next += 1 }
      return next
    }
  }
  func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

@MainActor @Suite(.checksLiveResources) struct AsyncSequenceObservableTests {
  @Test func elementsArriveInOrder() async {
    let stream = ValueObservable(
      AsyncStream<Int> { continuation in
        for i in 0..<50 { continuation.yield(i) }
        continuation.finish()
      })
    let seen = Recorder<Int>()
    let subscription = stream.subscribe(seen.record)
    #expect(await seen.arrival(ofCount: 50))
    #expect(seen.values == Array(0..<50))
    subscription.unsubscribe()
  }

  @Test func eachSubscriptionIteratesTheSequenceAfresh() async {
    let stream = ValueObservable(OneTwoThree())
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    stream.subscribe(first.record)
    stream.subscribe(second.record)
    #expect(await first.arrival(ofCount: 3))
    #expect(await second.arrival(ofCount: 3))
    #expect(first.values == [1, 2, 3])
    #expect(second.values == [1, 2, 3])
  }

  @Test func unsubscribeCancelsTheTaskAndNothingArrivesAfter() async {
    let (numbers, input) = AsyncStream.makeStream(of: Int.self)
    let terminated = Recorder<String>()
    input.onTermination = { _ in terminated.record("terminated") }
    let seen = Recorder<Int>()
    let subscription = ValueObservable(numbers).subscribe(seen.record)
    input.yield(1)
    #expect(await seen.arrival(ofCount: 1))
    subscription.unsubscribe()
    #expect(await terminated.arrival(ofCount: 1))
    input.yield(2)
    await settle()
    #expect(seen.values == [1])
  }

  @Test func aThrownErrorGoesToOnErrorOnceAfterTheElements() async {
    let failing = AsyncThrowingStream<Int, any Error> { continuation in
      continuation.yield(1)
      continuation.yield(2)
      continuation.finish(throwing: Boom())
    }
    let seen = Recorder<Int>()
    let errors = Recorder<String>()
    ValueObservable(failing) { error in errors.record("\(error is Boom)") }.subscribe(seen.record)
    #expect(await errors.arrival(ofCount: 1))
    #expect(seen.values == [1, 2])
    await settle()
    #expect(errors.values == ["true"])
  }

  @Test func cancellationByUnsubscribeIsNotReportedAsAnError() async {
    let errors = Recorder<String>()
    let seen = Recorder<Int>()
    let subscription = ValueObservable(Sleepy()) { errors.record("\($0)") }.subscribe(seen.record)
    await settle()
    subscription.unsubscribe()
    await settle()
    #expect(errors.values.isEmpty)
    #expect(seen.values.isEmpty)
  }

  @Test func theStreamComposesWithOperatorsAndMainActorDelivery() async {
    let stream = ValueObservable(
      AsyncStream<Int> { continuation in
        for i in 1...4 { continuation.yield(i) }
        continuation.finish()
      })
    let seen = Recorder<Int>()
    let subscription = stream.filter { $0.isMultiple(of: 2) }.receive(on: MainActor.shared)
      .subscribe { value in
        MainActor.preconditionIsolated()
        seen.record(value)
      }
    #expect(await seen.arrival(ofCount: 2))
    #expect(seen.values == [2, 4])
    subscription.unsubscribe()
  }
}
