// The floors of follow's delivery for Benchmarks/follow-vs-tail (issue 32): a hand-written
// `tail -F` of one file, with no library between, in two forms.
//
// - With the hop the delivery model asks for (the default): a thread of its own waits for the
//   inotify descriptor with `poll` and reads its events; each batch of events hops once to the
//   main queue (the main actor's), which reads the file from where it stopped and writes what it
//   read to standard output. One thread switch per event, as a subscriber on the main actor of a
//   one-hop producer gets (the package reads inotify on its poller's thread). Until 2026-11-27
//   the events were read by a Dispatch read source, as the package did: that floor cost 67 to 70
//   µs a change against 40 for this one, because Dispatch's manager thread returns from
//   `epoll_wait` and wakes a worker of the source's queue, one switch more
//   (Benchmarks/README.md as it was then, in git).
// - With no hop (`--no-hop`, "floor0"): the main thread does it all, as `follow` does since it
//   runs `MainLoop.run()`: `poll`, `read` of inotify, `pread` and `write`, the 4 system calls a
//   change that `follow` makes, and nothing else. Beside it, `follow` shows what the library's
//   layers cost on a path with no hop at all.
//
// Both open the file as `follow` does, with `O_NOATIME` (0o1000000; Glibc's module leaves it
// out): a read of it does not write its access time back.
//
// A read that comes back short of its buffer is the last (inotify and a regular file hand over
// all they hold): 2 read calls a change, as the package reads them.
//
//   swiftc -O -o follow-floor Benchmarks/floor/follow-floor.swift
//   follow-floor [--no-hop] FILE
import Dispatch
import Foundation
import Glibc

let path = CommandLine.arguments[CommandLine.arguments.count - 1]
let hops = !CommandLine.arguments.contains("--no-hop")
let fd = open(path, O_RDONLY | O_CLOEXEC | 0o1_000_000)
guard fd >= 0 else { fatalError("cannot open \(path)") }
var offset = lseek(fd, 0, SEEK_END)
let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
guard inotify_add_watch(inotify, path, UInt32(IN_MODIFY)) >= 0 else { fatalError("watch") }

let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 8)
/// Copies what was appended since the last call to standard output; on one thread at a time
/// (the main queue with the hop, the main thread without).
@Sendable func copyAppended() {
  while true {
    let count = pread(fd, buffer, 1 << 16, offset)
    guard count > 0 else { return }
    offset += off_t(count)
    var written = 0
    while written < count { written += write(1, buffer + written, count - written) }
    guard count == 1 << 16 else { return }  // short: the end of the file
  }
}

let events = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
/// Waits for inotify and reads all its events; then copies, at once or after the hop.
@Sendable func follow() {
  var entry = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
  while true {
    guard poll(&entry, 1, -1) > 0 else { continue }
    var any = false
    while case let count = read(inotify, events, 4096), count > 0 {
      any = true
      guard count == 4096 else { break }  // short: all there was
    }
    guard any else { continue }
    if hops { DispatchQueue.main.async { copyAppended() } } else { copyAppended() }
  }
}

if hops {
  Thread { follow() }.start()
  dispatchMain()
} else {
  follow()
}
