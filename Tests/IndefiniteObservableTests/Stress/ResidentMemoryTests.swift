import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A million subscribe-and-unsubscribe cycles, every kind of subscription in turn, must leave
/// the process's memory where it was: a leak of a few bytes per cycle would show as megabytes.
///
/// It runs in a child process of its own (an exit test), so that other tests running in
/// parallel do not move the measurement. Not under a sanitizer, whose runtime keeps freed
/// memory (quarantine, shadow and histories) by design; LeakSanitizer and the live-resource
/// counts cover those runs.
@Suite(.checksLiveResources) struct ResidentMemoryTests {
  static let cycles = 1_000_000
  /// How much the peak resident size may grow over the cycles, after a warm-up.
  static let bound = 4 << 20

  @Test(.enabled(if: !TestProcess.isSanitized, "sanitizers keep freed memory by design"))
  func aMillionSubscribeUnsubscribeCyclesLeaveMemoryFlat() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let cycler = Cycler()
      for cycle in 0..<(ResidentMemoryTests.cycles / 10) { cycler.run(cycle) }
      let before = TestProcess.peakResidentBytes
      for cycle in 0..<ResidentMemoryTests.cycles { cycler.run(cycle) }
      print("growth: \(TestProcess.peakResidentBytes - before)")
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    let growth = output.split(separator: " ").last.flatMap { Int($0.filter(\.isNumber)) }
    #expect(growth != nil, "the child printed \(output)")
    #expect(
      growth ?? 0 <= Self.bound,
      "the peak resident size grew by \(growth ?? 0) bytes over \(Self.cycles) cycles")
  }
}

/// One subscribe-and-unsubscribe cycle of each kind, in turn.
private final class Cycler {
  let emitter = Emitter<Int>()
  let holder = CurrentValue(0)
  let bag = SubscriptionBag()
  var received = 0

  func run(_ cycle: Int) {
    switch cycle % 6 {
    case 0: emitter.subscribe { self.received &+= $0 }.unsubscribe()
    case 1: emitter.subscribe(replayingLast: true, limit: 2) { self.received &+= $0 }.unsubscribe()
    case 2:
      // The owner goes at once; the next subscribe removes the subscription.
      emitter.subscribe(Owner()) { _, value in self.received &+= value }
    case 3: holder.subscribe { self.received &+= $0 }.unsubscribe()
    case 4:
      emitter.map { $0 + 1 }.filter { $0 > 0 }.subscribe { self.received &+= $0 }.store(in: bag)
      bag.unsubscribeAll()
    default:
      bag.subscribe(to: emitter) { self.received &+= $0 }
      bag.unsubscribe(from: emitter)
    }
    if cycle.isMultiple(of: 64) {
      emitter.send(cycle)
      holder.value = cycle
    }
  }
}

private final class Owner {}
