import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The subscribe options read the same on `Emitter` and `CurrentValue`: the same labels, in the
/// same order (owner, `on:`, `replayingLast:`, `limit:`, then the closure), with only the
/// default of `replayingLast:` differing.
@Suite(.checksLiveResources) struct SubscribeOptionsTests {
  @Test func everySubscribeFormTakesTheSameOptionsOnBothSources() {
    let queue = DispatchQueue(label: "delivery")
    let emitter = Emitter<Int>()
    let holder = CurrentValue(0)
    emitter.send(0)
    let witness = Recorder<Int>()
    let heard = Recorder<String>()

    emitter.subscribe(replayingLast: true, limit: 2) { heard.append("e \($0)") }
    holder.subscribe(replayingLast: true, limit: 2) { heard.append("c \($0)") }
    emitter.subscribe(witness, replayingLast: true, limit: 2) { _, v in heard.append("eo \(v)") }
    holder.subscribe(witness, replayingLast: true, limit: 2) { _, v in heard.append("co \(v)") }
    emitter.subscribe(on: queue, replayingLast: true, limit: 2) { heard.append("eq \($0)") }
    holder.subscribe(on: queue, replayingLast: true, limit: 2) { heard.append("cq \($0)") }
    emitter.subscribe(witness, on: queue, replayingLast: true, limit: 2) { _, v in
      heard.append("eoq \(v)")
    }
    holder.subscribe(witness, on: queue, replayingLast: true, limit: 2) { _, v in
      heard.append("coq \(v)")
    }
    for value in 1...3 {
      emitter.send(value)
      holder.value = value
    }
    queue.sync {}

    for name in ["e", "c", "eo", "co", "eq", "cq", "eoq", "coq"] {
      #expect(heard.values.filter { $0.hasPrefix("\(name) ") } == ["\(name) 0", "\(name) 1"])
    }
    #expect(emitter.subscriberCount == 0)
    #expect(holder.subscriberCount == 0)
  }

  @Test func onlyTheDefaultOfReplayingLastDiffers() {
    let emitter = Emitter<Int>()
    let holder = CurrentValue(0)
    emitter.send(0)
    var heard: [String] = []
    emitter.subscribe(limit: 1) { heard.append("emitter \($0)") }
    holder.subscribe(limit: 1) { heard.append("holder \($0)") }
    emitter.send(1)
    holder.value = 1
    #expect(heard == ["holder 0", "emitter 1"])
  }

  @Test func unsubscribingByOwnerAndAllReadsTheSameOnBothSources() {
    let emitter = Emitter<Int>()
    let holder = CurrentValue(0)
    let witness = Witness()
    var heard: [Int] = []
    emitter.subscribe(witness) { witness, value in witness.received.append(value) }
    holder.subscribe(witness, replayingLast: false) { witness, value in
      witness.received.append(value)
    }
    emitter.subscribe { heard.append($0) }
    holder.subscribe(replayingLast: false) { heard.append($0) }
    emitter.unsubscribe(witness)
    holder.unsubscribe(witness)
    emitter.send(1)
    holder.value = 2
    #expect(witness.received.isEmpty)
    #expect(heard == [1, 2])
    emitter.unsubscribeAll()
    holder.unsubscribeAll()
    emitter.send(3)
    holder.value = 4
    #expect(heard == [1, 2])
    #expect(emitter.subscriberCount + holder.subscriberCount == 0)
  }
}
