// A lock-guarded array whose readers take a snapshot under the lock and read it outside; a
// writer changes one element under the lock. Copy-on-write makes this race-free: the writer
// mutates in place only when the array's buffer is uniquely referenced, which it is only once
// every snapshot was released. ThreadSanitizer does not see that edge (the reference count is
// changed by the Swift runtime, which it does not instrument) and reports the reader's read
// and the writer's write as a data race.
import Foundation

final class Box: @unchecked Sendable {  // guarded by `lock`
  let lock = NSLock()
  var values = ContiguousArray<Int>(repeating: 0, count: 64)
}

let box = Box()
let rounds = 200_000
let reader = Thread {
  var sum = 0
  for _ in 0..<rounds {
    box.lock.lock()
    let snapshot = box.values  // a retain, not a copy
    box.lock.unlock()
    snapshot.withUnsafeBufferPointer { for value in $0 { sum &+= value } }
  }
  print("reader done", sum == .min ? "" : "")
}
let writer = Thread {
  for round in 0..<rounds {
    box.lock.lock()
    box.values[round % 64] = round  // in place when no snapshot is left
    box.lock.unlock()
  }
  print("writer done")
}
reader.start()
writer.start()
while !(reader.isFinished && writer.isFinished) { usleep(10_000) }
