import Dispatch
import Foundation
import IndefiniteObservable
import Multicast

/// Lets a test pass a few turns of the main actor and the cooperative pool, so that work that
/// should *not* happen has had its chance to happen.
func settle(isolation: isolated (any Actor)? = #isolation) async {
  for _ in 0..<20 {
    await Task.yield()
  }
  try? await Task.sleep(for: .milliseconds(20))
  for _ in 0..<20 {
    await Task.yield()
  }
}

/// Runs `body` on a thread of the global queue and waits for it. (`DispatchQueue.sync` would
/// not do: it runs its block on the calling thread, and a block written in main-actor code is
/// main-actor isolated.)
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
  let done = DispatchSemaphore(value: 0)
  DispatchQueue.global().async {
    body()
    done.signal()
  }
  done.wait()
}

/// Runs `body` on a new thread of its own (not a Dispatch worker, so that blocking it cannot
/// starve other tests) and returns a semaphore signalled when `body` returns.
func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done
}

/// A counter that threads increment at once.
///
/// `@unchecked Sendable`: `storage` is read and written only under `lock`.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var storage = 0

  /// Adds one and returns the new value.
  @discardableResult
  func increment() -> Int {
    lock.withLock {
      storage += 1
      return storage
    }
  }

  var value: Int {
    lock.withLock { storage }
  }
}

/// An object whose deallocation tests watch through a weak reference.
final class Witness {
  var received: [Int] = []
}
