import Dispatch
import IndefiniteObservable
import Testing

@testable import Multicast

/// The run-time checks behind the claims that the compiler cannot check: each test provokes the
/// breach in a child process (an exit test) and sees the debug assertion stop it, so that a
/// claim that stops holding fails a test instead of racing.
///
/// The checks are `assert`s and `assertIsolated`s, which debug builds compile and release
/// builds drop; the tests run in debug builds, as `swift test` builds them.
@Suite struct IsolationAssertionTests {
  #if DEBUG
    /// `sendFromCurrentThread` delivers inline when `SendingIsolation` says this thread runs the
    /// gate's actor. A wrong record (here, made by hand on a thread of no actor) would run an
    /// actor's closure off it: the assertion stops the process first.
    @Test func aGateDeliveringInlineOffItsActorStops() async {
      await #expect(processExitsWith: .failure) {
        let other = Elsewhere()
        let gate = await other.gate()
        SendingIsolation.with(other) { _ = gate.sendFromCurrentThread(1) }
      }
    }

    /// The same send, with the record right (on the actor), delivers inline: the control of the
    /// test above.
    @Test func aGateDeliveringInlineOnItsActorRuns() async {
      let other = Elsewhere()
      let gate = await other.gate()
      #expect(await other.sendInline(gate, 1) == [1])
    }

    /// A serialized gate's closure is called one at a time: `deliverSerially` hands a value that
    /// arrives during a call to that call's thread. Two calls made at once by hand (as a broken
    /// `deliverSerially` would) stop the process.
    @Test func aSerializedGateCalledTwiceAtOnceStops() async {
      await #expect(processExitsWith: .failure) {
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let gate = ObserverGate<Int>.serializing { value in
          if value == 1 {
            inside.signal()
            release.wait()
          }
        }
        DispatchQueue.global().async {
          gate.runAlone(
            .init { _ in
              inside.signal(); release.wait()
            }!, 1)
        }
        inside.wait()
        gate.runAlone(.init { _ in }!, 2)
        release.signal()
      }
    }

    /// The same two values sent at once through `send` are delivered one after the other: the
    /// control of the test above.
    @Test func aSerializedGateSentTwiceAtOnceRunsOneCallAtATime() async {
      let inside = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      let seen = LockedState<[Int]>([])
      let gate = ObserverGate<Int>.serializing { value in
        seen.withLock { $0.append(value) }
        if value == 1 {
          inside.signal()
          release.wait()
        }
      }
      let first = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        gate.send(1)
        first.signal()
      }
      inside.wait()
      gate.send(2)  // queued: the first call is under way
      #expect(seen.withLock { $0 } == [1])
      release.signal()
      first.wait()
      #expect(seen.withLock { $0 } == [1, 2])
    }
  #endif
}

private actor Elsewhere {
  var received: [Int] = []

  func gate() -> ObserverGate<Int> {
    ObserverGate(isolation: self) { value in self.received.append(value) }
  }

  func sendInline(_ gate: ObserverGate<Int>, _ value: Int) -> [Int] {
    SendingIsolation.with(self) { _ = gate.sendFromCurrentThread(value) }
    return received
  }
}

extension IsolationAssertionTests {
  #if DEBUG
    /// `LockedState` is not re-entrant: a `withLock` inside its own body would deadlock. Debug
    /// builds stop the program instead.
    @Test func aLockTakenAgainFromInsideItsBodyStops() async {
      await #expect(processExitsWith: .failure) {
        let count = LockedState(0)
        count.withLock { _ in count.withLock { $0 += 1 } }
      }
    }

    /// A sendable source's storage takes only subscribers that may run on any thread: one
    /// handed in as of one isolation (which no public spelling does) stops the program.
    @Test func aSendableSourceRefusesASubscriberOfOneIsolation() async {
      await #expect(processExitsWith: .failure) {
        let emitter = SendableEmitter<Int>()
        _ = emitter._storage.subscribe(.plain { _ in })
      }
    }

    /// The control of the two above: a nested lock of another state, and a subscriber of one
    /// isolation on an `Emitter`, are allowed.
    @Test func anotherLockInsideABodyAndAnEmittersSubscriberRun() {
      let outer = LockedState(0)
      let inner = LockedState(0)
      outer.withLock { value in inner.withLock { value = $0 + 1 } }
      #expect(outer.withLock { $0 } == 1)
      let emitter = Emitter<Int>()
      var seen: [Int] = []
      let disconnect = emitter._storage.subscribe(.plain { seen.append($0) })
      emitter.send(1)
      disconnect()
      #expect(seen == [1])
    }
  #endif
}
