import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Operator fusion: a `filter` applied to a stage that `map` or `filter` made runs in that
/// stage's closure, and nothing a subscriber, a transform or a predicate can see changes.
@Suite(.checksLiveResources) struct FusionTests {
  // MARK: - Fusion happens

  @Test func filterAfterMapRunsInOneStage() {
    let source = CallbackSource<Int>()
    let mapped = source.stream.map { $0 + 1 }
    let fused = stackDepthAtSubscriber(of: mapped.filter { $0 > 0 }, from: source)
    let separate = stackDepthAtSubscriber(of: unfusible(mapped).filter { $0 > 0 }, from: source)
    #expect(fused < separate, "fused: \(fused) frames, separate stages: \(separate) frames")
  }

  @Test func filterAfterFilterRunsInOneStage() {
    let source = CallbackSource<Int>()
    let filtered = source.stream.filter { $0 > 0 }
    let fused = stackDepthAtSubscriber(of: filtered.filter { $0 < 10 }, from: source)
    let separate = stackDepthAtSubscriber(
      of: unfusible(filtered).filter { $0 < 10 }, from: source)
    #expect(fused < separate, "fused: \(fused) frames, separate stages: \(separate) frames")
  }

  @Test func aFusedStageCallsEachClosureOncePerValue() {
    let source = CallbackSource<Int>()
    var transforms = 0
    var firstChecks = 0
    var secondChecks = 0
    var seen: [Int] = []
    let subscription = source.stream
      .map { value -> Int in
        transforms += 1
        return value * 2
      }
      .filter { value in
        firstChecks += 1
        return value > 2
      }
      .filter { value in
        secondChecks += 1
        return value < 10
      }
      .subscribe { seen.append($0) }
    for value in 1...6 { source.emit(value) }
    subscription.unsubscribe()
    #expect(seen == [4, 6, 8])
    #expect(transforms == 6)
    #expect(firstChecks == 6)
    #expect(secondChecks == 5)
  }

  // MARK: - Same values, same order of calls

  @Test func fusedChainsDeliverWhatSeparateStagesDeliver() {
    var generator = SeededGenerator(seed: 18)
    for round in 0..<200 {
      let values = (0..<generator.below(40)).map { _ in generator.below(200) - 100 }
      let divisor = generator.below(5) + 2
      let offset = generator.below(21) - 10
      let limit = generator.below(120) - 20
      let chains: [(String, (ValueObservable<Int>) -> ValueObservable<Int>)] = [
        ("map, filter", { $0.map { $0 + offset }.filter { $0.isMultiple(of: divisor) } }),
        ("filter, filter", { $0.filter { $0 < limit }.filter { $0.isMultiple(of: divisor) } }),
        (
          "map, filter, filter",
          { $0.map { $0 * offset }.filter { $0 < limit }.filter { $0 % divisor != 0 } }
        ),
        (
          "filter, filter, map, filter",
          {
            $0.filter { $0 > offset }.filter { $0 < limit }.map { $0 / divisor }
              .filter { $0 != 0 }
          }
        ),
        ("map, map, filter", { $0.map { $0 - offset }.map { $0 * divisor }.filter { $0 > limit } }),
      ]
      for (name, chain) in chains {
        let fused = deliveries(of: chain(SynchronousSource(values).stream))
        let separate = deliveries(of: chain(unfusible(SynchronousSource(values).stream)))
        let expected = arrayResult(name, values, offset: offset, divisor: divisor, limit: limit)
        #expect(fused == expected, "round \(round), \(name), values \(values)")
        #expect(separate == expected, "round \(round), \(name), values \(values)")
      }
    }
  }

  @Test func transformsAndPredicatesRunInTheSameOrderFusedOrNot() {
    func calls(fusible: Bool) -> [String] {
      let source = CallbackSource<Int>()
      var calls: [String] = []
      let upstream = fusible ? source.stream : unfusible(source.stream)
      let mapped = upstream.map { value -> Int in
        calls.append("map \(value)")
        return value + 10
      }
      let subscription = (fusible ? mapped : unfusible(mapped))
        .filter { value in
          calls.append("first \(value)")
          return value.isMultiple(of: 2)
        }
        .filter { value in
          calls.append("second \(value)")
          return value > 11
        }
        .subscribe { calls.append("next \($0)") }
      for value in 1...4 { source.emit(value) }
      subscription.unsubscribe()
      return calls
    }
    let fused = calls(fusible: true)
    #expect(fused == calls(fusible: false))
    #expect(
      fused == [
        "map 1", "first 11",
        "map 2", "first 12", "second 12", "next 12",
        "map 3", "first 13",
        "map 4", "first 14", "second 14", "next 14",
      ])
  }

  @Test func aValueSentFromInsideAFusedStageGoesThroughItAtOnce() {
    func calls(fusible: Bool) -> [String] {
      let source = CallbackSource<Int>()
      var calls: [String] = []
      let mapped = source.stream.map { value -> Int in
        calls.append("map \(value)")
        if value == 1 { source.emit(100) }
        return value
      }
      let subscription = (fusible ? mapped : unfusible(mapped))
        .filter { value in
          calls.append("filter \(value)")
          if value == 2 { source.emit(200) }
          return true
        }
        .subscribe { calls.append("next \($0)") }
      source.emit(1)
      source.emit(2)
      subscription.unsubscribe()
      return calls
    }
    let fused = calls(fusible: true)
    #expect(fused == calls(fusible: false))
    #expect(
      fused == [
        "map 1", "map 100", "filter 100", "next 100", "filter 1", "next 1",
        "map 2", "filter 2", "map 200", "filter 200", "next 200", "next 2",
      ])
  }

  // MARK: - Subscriptions, lifetimes, subclasses

  @Test func eachSubscriptionOfAFusedChainConnectsAndDisconnectsItsUpstreamOnce() {
    let source = CallbackSource<Int>()
    let chain = source.stream.map { $0 * 3 }.filter { $0 > 3 }
    var first: [Int] = []
    var second: [Int] = []
    let one = chain.subscribe { first.append($0) }
    let two = chain.subscribe { second.append($0) }
    #expect(source.connects == 2)
    source.emit(1)
    source.emit(2)
    one.unsubscribe()
    source.emit(3)
    two.unsubscribe()
    source.emit(4)
    #expect(first == [6])
    #expect(second == [6, 9])
    #expect(source.disconnects == 2)
    #expect(source.observerCount == 0)
  }

  @Test func aFusedChainReleasesItsClosuresWhenUnsubscribedAndDropped() {
    final class Captured {}
    weak var weakTransformTarget: Captured?
    weak var weakPredicateTarget: Captured?
    let source = CallbackSource<Int>()
    var subscription: Subscription?
    do {
      let transformTarget = Captured()
      let predicateTarget = Captured()
      weakTransformTarget = transformTarget
      weakPredicateTarget = predicateTarget
      subscription = source.stream
        .map { value in withExtendedLifetime(transformTarget) { value + 1 } }
        .filter { value in withExtendedLifetime(predicateTarget) { value > 0 } }
        .subscribe { _ in }
    }
    #expect(weakTransformTarget != nil)
    #expect(weakPredicateTarget != nil)
    subscription?.unsubscribe()
    subscription = nil
    #expect(weakTransformTarget == nil)
    #expect(weakPredicateTarget == nil)
  }

  @Test func anEmitterKeepsItsBehaviourUnderAFusedChain() {
    let emitter = Emitter<Int>()
    emitter.send(5)
    var seen: [Int] = []
    let subscription = emitter.map { $0 * 2 }.filter { $0 > 2 }.filter { $0 < 100 }
      .subscribe { seen.append($0) }
    #expect(emitter.subscriberCount == 1)
    emitter.send(1)
    emitter.send(2)
    emitter.send(60)
    subscription.unsubscribe()
    #expect(emitter.subscriberCount == 0)
    emitter.send(3)
    #expect(seen == [4])
  }

  @Test func aSubclassKeepsItsConnectUnderAFusedChain() {
    final class Counter { var connects = 0 }
    final class Countdown: ValueObservable<Int> {
      init(from start: Int, counter: Counter) {
        super.init { observer in
          counter.connects += 1
          for value in stride(from: start, through: 0, by: -1) { observer.next(value) }
          return noopDisconnect
        }
      }
    }
    let counter = Counter()
    let countdown = Countdown(from: 5, counter: counter)
    var seen: [Int] = []
    countdown.map { $0 * 10 }.filter { $0 > 0 }.filter { $0 != 30 }.subscribe { seen.append($0) }
    #expect(seen == [50, 40, 20, 10])
    #expect(counter.connects == 1)
  }

  @Test func anObserverSubscribedToAFusedChainGetsItsValues() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.filter { $0 > 1 }.filter { $0 < 4 }
      .subscribe(observer: ValueObserver { seen.append($0) })
    for value in 1...5 { source.emit(value) }
    subscription.unsubscribe()
    #expect(seen == [2, 3])
    #expect(source.observerCount == 0)
  }
}

// MARK: - Helpers

/// `stream` behind a stage that no operator fuses with: its connect hands the observer's own
/// closure to `stream`, so it adds no closure of its own per value either.
private func unfusible<T>(_ stream: ValueObservable<T>) -> ValueObservable<T> {
  ValueObservable { observer in
    let subscription = stream.subscribe(observer.next)
    return { subscription.unsubscribe() }
  }
}

/// How many frames are on the stack when `chain`'s subscriber receives a value that `source`
/// emits. A chain whose stages are fused calls the subscriber through fewer closures.
private func stackDepthAtSubscriber(
  of chain: ValueObservable<Int>, from source: CallbackSource<Int>
) -> Int {
  var depth = 0
  let subscription = chain.subscribe { _ in depth = Thread.callStackReturnAddresses.count }
  source.emit(5)
  subscription.unsubscribe()
  return depth
}

/// What `stream` delivers, synchronously, on one subscription.
private func deliveries(of stream: ValueObservable<Int>) -> [Int] {
  var seen: [Int] = []
  stream.subscribe { seen.append($0) }.unsubscribe()
  return seen
}

/// What the chain called `name` computes, with the standard library's `map` and `filter`.
private func arrayResult(
  _ name: String, _ values: [Int], offset: Int, divisor: Int, limit: Int
) -> [Int] {
  switch name {
  case "map, filter":
    return values.map { $0 + offset }.filter { $0.isMultiple(of: divisor) }
  case "filter, filter":
    return values.filter { $0 < limit }.filter { $0.isMultiple(of: divisor) }
  case "map, filter, filter":
    return values.map { $0 * offset }.filter { $0 < limit }.filter { $0 % divisor != 0 }
  case "filter, filter, map, filter":
    return values.filter { $0 > offset }.filter { $0 < limit }.map { $0 / divisor }
      .filter { $0 != 0 }
  case "map, map, filter":
    return values.map { $0 - offset }.map { $0 * divisor }.filter { $0 > limit }
  default:
    Issue.record("no array result for \(name)")
    return []
  }
}
