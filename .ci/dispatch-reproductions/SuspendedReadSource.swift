// A libdispatch crash on Linux, with nothing of this package: read sources on pipes, each
// suspended by its event handler for a turn on its queue, which reads to end of file and then
// cancels and resumes the source (the duplicate is closed in the cancel handler, while the
// original read end stays open, readable). libdispatch's manager thread then reads a freed
// muxnote in `_dispatch_event_loop_drain` and the process dies with SIGSEGV.
//
// Seen with Swift 6.3.1 on Linux x86_64, 2 cores:
// - `swiftc -sanitize=thread SuspendedReadSource.swift && ./SuspendedReadSource 3000` crashed
//   in 6 runs of 6, each in `_dispatch_event_loop_drain`;
// - built with `-O`, 2000 rounds, it crashed in some runs only (0 of 5 on an idle machine; a
//   variant of it, 4 of 5 while other builds ran), with SIGSEGV in the same function.
// A variant that never suspends its sources and cancels each inside its own event handler did
// not crash (0 of 12 runs of 2000 rounds, `-O`). The package's readers wait with
// `DescriptorPoller` instead of read sources. Not run by CI: it is meant to crash.
import Dispatch
import Glibc

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "200")!
let parallel = 16
let group = DispatchGroup()
var originals: [Int32] = []
for round in 0..<rounds {
  var fds: [Int32] = [0, 0]
  precondition(pipe(&fds) == 0)
  originals.append(fds[0])
  let duplicate = fcntl(fds[0], F_DUPFD_CLOEXEC, 0)
  _ = fcntl(duplicate, F_SETFL, O_NONBLOCK)
  let writeEnd = fds[1]
  let queue = DispatchQueue(label: "reader \(round)")
  let source = DispatchSource.makeReadSource(fileDescriptor: duplicate, queue: queue)
  group.enter()
  source.setEventHandler {
    source.suspend()
    queue.async {
      var buffer = [UInt8](repeating: 0, count: 256)
      var n = read(duplicate, &buffer, buffer.count)
      while n > 0 { n = read(duplicate, &buffer, buffer.count) }
      if n == 0 {
        source.cancel()
        source.resume()
      } else {
        source.resume()
      }
    }
  }
  source.setCancelHandler {
    close(duplicate)
    group.leave()
  }
  source.activate()
  DispatchQueue.global().async {
    var byte: UInt8 = 10
    _ = write(writeEnd, &byte, 1)
    close(writeEnd)
  }
  if round % parallel == parallel - 1 {
    group.wait()
    for fd in originals { close(fd) }
    originals.removeAll()
  }
}
group.wait()
print("done \(rounds)")
