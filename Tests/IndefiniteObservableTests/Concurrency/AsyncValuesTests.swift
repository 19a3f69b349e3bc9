import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct AsyncValuesTests {
  @Test func valuesArriveInOrderAcrossThreads() async {
    let source = ThreadSafeSource<Int>()
    let consumer = Task {
      var seen: [Int] = []
      for await value in source.stream.values {
        seen.append(value)
        if seen.count == 100 { break }
      }
      return seen
    }
    #expect(await eventually { source.observerCount == 1 })
    Task.detached {
      for i in 0..<100 { source.emit(i) }
    }
    #expect(await consumer.value == Array(0..<100))
  }

  @Test func valuesSentDuringSubscriptionComeFirst() async {
    let source = SynchronousSource([1, 2, 3])
    var seen: [Int] = []
    for await value in source.stream.values {
      seen.append(value)
      if seen.count == 3 { break }
    }
    #expect(seen == [1, 2, 3])
  }

  @Test func leavingTheLoopUnsubscribesAtOnce() async {
    let source = ThreadSafeSource<Int>()
    let stream = source.stream
    let feeder = Task.detached {
      while !Task.isCancelled {
        source.emit(1)
        await Task.yield()
      }
    }
    for await _ in stream.values { break }
    #expect(source.connects == 1)
    #expect(source.disconnects == 1)
    #expect(source.observerCount == 0)
    feeder.cancel()
  }

  @Test func cancellingTheIteratingTaskUnsubscribes() async {
    let source = ThreadSafeSource<Int>()
    let started = Recorder<Int>()
    let consumer = Task {
      for await value in source.stream.values { started.record(value) }
      return "ended"
    }
    #expect(await eventually { source.observerCount == 1 })
    source.emit(1)
    #expect(await started.arrival(ofCount: 1))
    consumer.cancel()
    #expect(await consumer.value == "ended")
    #expect(await eventually { source.disconnects == 1 })
    #expect(source.observerCount == 0)
  }

  @Test func eachLoopIsItsOwnSubscription() async {
    let source = SynchronousSource([7])
    let values = source.stream.values
    for await value in values {
      #expect(value == 7)
      break
    }
    for await value in values {
      #expect(value == 7)
      break
    }
    #expect(source.connects == 2)
    #expect(source.disconnects == 2)
  }

  @Test func bufferingNewestKeepsTheLatestValues() async {
    let source = SynchronousSource(Array(1...10))
    var seen: [Int] = []
    for await value in source.stream.values(bufferingPolicy: .bufferingNewest(2)) {
      seen.append(value)
      if seen.count == 2 { break }
    }
    #expect(seen == [9, 10])
  }

  @Test func bufferingOldestKeepsTheFirstValues() async {
    let source = SynchronousSource(Array(1...10))
    var seen: [Int] = []
    for await value in source.stream.values(bufferingPolicy: .bufferingOldest(3)) {
      seen.append(value)
      if seen.count == 3 { break }
    }
    #expect(seen == [1, 2, 3])
  }

  @Test func operatorsComposeBeforeValues() async {
    let source = SynchronousSource(Array(1...6))
    var seen: [String] = []
    for await text in source.stream.filter({ $0.isMultiple(of: 3) }).map({ "#\($0)" }).values {
      seen.append(text)
      if seen.count == 2 { break }
    }
    #expect(seen == ["#3", "#6"])
  }
}
