import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// `Emitter(keepsLastValue: false)`: an emitter that lets go of each value when its send returns.
@Suite(.checksLiveResources) struct EmitterKeepsNoLastValueTests {
  @Test func itDeliversLikeAnyEmitterButHasNoLastValue() {
    let emitter = Emitter<Int>(keepsLastValue: false)
    var seen: [Int] = []
    emitter.subscribe { seen.append($0) }
    emitter.send(1)
    emitter.send(2)
    #expect(seen == [1, 2])
    #expect(emitter.lastValue == nil)
    #expect(emitter.sendCount == 2)
  }

  @Test func replayingLastReplaysNothing() {
    let emitter = Emitter<String>(keepsLastValue: false)
    emitter.send("before")
    var seen: [String] = []
    emitter.subscribe(replayingLast: true) { seen.append($0) }
    #expect(seen.isEmpty)
    emitter.send("after")
    #expect(seen == ["after"])
  }

  @Test func theValueIsReleasedWhenTheSendReturns() {
    let emitter = Emitter<Witness>(keepsLastValue: false)
    var received = 0
    emitter.subscribe { _ in received += 1 }
    weak var weakValue: Witness?
    do {
      let value = Witness()
      weakValue = value
      emitter.send(value)
    }
    #expect(received == 1)
    #expect(weakValue == nil)
  }

  @Test func theDefaultEmitterKeepsTheLastValueAlive() {
    // The contrast: what `keepsLastValue: false` is for.
    let emitter = Emitter<Witness>()
    weak var weakValue: Witness?
    do {
      let value = Witness()
      weakValue = value
      emitter.send(value)
    }
    #expect(weakValue != nil)
    #expect(emitter.lastValue === weakValue)
  }
}
