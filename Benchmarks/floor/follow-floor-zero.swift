// The floor of a follower that makes no thread switch, for Benchmarks/follow-vs-tail (issue 32):
// a hand-written `tail -F` of one file, with no library between, whose one thread does all the
// work, as `follow` does since it runs `MainLoop.run()`. It waits for the inotify descriptor with
// `poll`, reads its events, reads the file from where it stopped and writes what it read to
// standard output: 4 system calls a change, the ones `follow` makes. Beside follow-floor.swift
// (one hop), it says what the library's layers cost on a path with no hop at all.
//
//   swiftc -O -o follow-floor-zero Benchmarks/floor/follow-floor-zero.swift
//   follow-floor-zero FILE
import Glibc

let path = CommandLine.arguments[CommandLine.arguments.count - 1]
let fd = open(path, O_RDONLY | O_CLOEXEC)
guard fd >= 0 else { fatalError("cannot open \(path)") }
var offset = lseek(fd, 0, SEEK_END)
let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
guard inotify_add_watch(inotify, path, UInt32(IN_MODIFY)) >= 0 else { fatalError("watch") }

let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 8)
let events = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
var entry = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
while true {
  guard poll(&entry, 1, -1) > 0 else { continue }
  // A read that comes back short of its buffer is the last: inotify hands over all it holds.
  while case let count = read(inotify, events, 4096), count == 4096 {}
  // The same for the file: a short read is its end.
  while true {
    let count = pread(fd, buffer, 1 << 16, offset)
    guard count > 0 else { break }
    offset += off_t(count)
    var written = 0
    while written < count { written += write(1, buffer + written, count - written) }
    guard count == 1 << 16 else { break }
  }
}
