// emitter-hop COUNT: a value type of this module's own sent COUNT times through a
// `SendableEmitter` from a thread to a subscriber on the main actor, each once the one before
// has arrived: a user's producer, in a module of its own, for `Benchmarks/hop-counts`, which
// counts what each value costs the Swift runtime (generic metadata looked up, objects,
// retains). The library's path of a value is `@inlinable`, so that code in another module runs
// it specialized for the value's type; unspecialized, it looked up the generic metadata of its
// types at every value.
import Dispatch
import Foundation
import Multicast

/// A user's value: a struct of this module, which the library's module cannot specialize for.
struct Reading: Sendable {
  var id: Int
  var name: String
}

let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1000
let readings = SendableEmitter<Reading>(keepingLast: 0)
let arrived = DispatchSemaphore(value: 0)
let subscription = readings.subscribe { (reading: Reading) in
  precondition(!reading.name.isEmpty)
  arrived.signal()
}
Thread {
  for id in 0..<count {
    readings.send(Reading(id: id, name: "reading"))
    arrived.wait()
  }
  exit(0)
}.start()
withExtendedLifetime(subscription) { dispatchMain() }
