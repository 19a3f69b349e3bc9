import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@MainActor @Suite(.checksLiveResources) struct ObserverGateTests {
  @Test(.timeLimit(.minutes(1))) func sendingManyValuesThroughOneGateCostsTheSameEachTime() {
    // Each send reads the closure out of the gate's lock. Kept as a bare generic state, the
    // closure was wrapped in one more reabstraction thunk at every read, until a call went
    // through tens of thousands of thunks and overflowed the stack.
    var received = 0
    let gate = ObserverGate<Int>(isolation: #isolation) { _ in received += 1 }
    for value in 0..<200_000 { gate.send(value) }
    #expect(received == 200_000)
  }

  @Test func closingStopsDeliveryAndReleasesTheClosure() {
    final class Captured {}
    weak var weakCaptured: Captured?
    var received: [Int] = []
    let gate: ObserverGate<Int>
    do {
      let captured = Captured()
      weakCaptured = captured
      gate = ObserverGate(isolation: #isolation) { value in
        _ = captured
        received.append(value)
      }
    }
    #expect(gate.send(1))
    #expect(gate.close())
    #expect(weakCaptured == nil)
    #expect(!gate.send(2))
    #expect(!gate.close())
    #expect(gate.isClosed)
    #expect(received == [1])
  }

  /// A value that the closure sends to its own gate, during a call of a value delivered on the
  /// spot, is delivered after that call returns and before the outer send returns, in the order
  /// sent: calls never nest. The gate is then idle again, and delivers the next value on the spot.
  @Test func aSendFromTheClosureDuringADeliveryOnTheSpotIsDeliveredAfterTheCall() {
    final class Box { var gate: ObserverGate<Int>? }
    let box = Box()
    var seen: [String] = []
    var depth = 0
    let gate = ObserverGate<Int>(isolation: #isolation) { value in
      depth += 1
      defer { depth -= 1 }
      seen.append("\(value)@\(depth)")
      if value == 1 {
        box.gate?.send(2)
        box.gate?.send(3)
        seen.append("sent")
      }
    }
    box.gate = gate
    #expect(gate.send(1))
    #expect(seen == ["1@1", "sent", "2@1", "3@1"])
    #expect(gate.send(4))
    #expect(seen == ["1@1", "sent", "2@1", "3@1", "4@1"])
    gate.close()
    box.gate = nil
  }

  /// A closed gate that something still holds (an Observation registration waiting for the next
  /// change, say) keeps no actor alive: the actor that owns the object would otherwise keep it,
  /// and leak with it.
  @Test func aClosedGateKeepsNoActorAlive() async {
    weak var weakOwner: GateOwner?
    let gate: ObserverGate<Int>
    do {
      let owner = GateOwner()
      weakOwner = owner
      gate = await owner.makeGate()
    }
    #expect(weakOwner != nil)  // an open gate keeps its actor
    gate.close()
    #expect(weakOwner == nil)
  }
}

private actor GateOwner {
  func makeGate() -> ObserverGate<Int> {
    ObserverGate(isolation: self) { _ in }
  }
}
