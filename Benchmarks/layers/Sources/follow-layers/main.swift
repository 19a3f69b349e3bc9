// follow-layers LAYER FILE: prints what is appended to FILE, through one more layer of the
// library at each step, for `Benchmarks/follow-vs-tail --layers`. Each runs `MainLoop.run()`, as
// `follow` does, so the main thread reads inotify and every layer runs there, with no hop.
// Beside the floor with no hop (Benchmarks/floor/follow-floor.swift --no-hop: `poll`, `read`,
// `pread` and `write` on one thread) and `follow`, each layer's cost per event is the
// difference between two neighbours:
//
//   watch-on-sending-thread  FileWatch.changes(at:).subscribe(on: .sendingThread), on the thread that read
//                            inotify (the main thread), then `pread` and `write`: FileWatch's
//                            reading, demultiplexing and translation.
//   watch                    FileWatch.changes(at:) delivered on the main actor (in the same
//                            call, through its gate), then `pread` and `write`.
//   watch+bytes              the same watch sending the refill of FileDescriptors.bytes(of:
//                            ownership:refill:), whose reader reads on the main actor and hands
//                            the chunk over in the same call: FileReader's pass.
//
// `follow` adds its own on top: the line splitter, the printed position and the output.
import Dispatch
import IndefiniteObservable
import Multicast
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes `bytes` to standard output, whole.
func writeOut(_ bytes: UnsafeRawBufferPointer) {
  var written = 0
  while written < bytes.count {
    let result = write(1, bytes.baseAddress! + written, bytes.count - written)
    guard result > 0 else { exit(1) }
    written += result
  }
}

/// Says `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
  var line = message + "\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  exit(status)
}

/// The file, read from its end on, on the main actor.
@MainActor enum Copier {
  static var fd: Int32 = -1
  static var offset: off_t = 0
  static let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)

  /// Copies what was appended since the last call to standard output, as the floor does.
  static func copyAppended() {
    while true {
      let count = pread(fd, buffer.baseAddress, buffer.count, offset)
      guard count > 0 else { return }
      offset += off_t(count)
      writeOut(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      guard count == buffer.count else { return }  // short: the end of the file
    }
  }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
  fail("usage: follow-layers watch-on-sending-thread|watch|watch+bytes FILE", status: 2)
}
let path = arguments[2]
// O_NOATIME, as `follow` opens a file (0o1000000; Glibc's module leaves it out).
let fd = open(path, O_RDONLY | O_CLOEXEC | 0o1_000_000)
guard fd >= 0 else { fail("follow-layers: cannot open \(path)", status: 2) }
Copier.fd = fd
Copier.offset = lseek(fd, 0, SEEK_END)

var subscriptions: [Subscription] = []
do {
  switch arguments[1] {
  case "watch-on-sending-thread":
    subscriptions.append(
      Subscription(
        try FileWatch.changes(at: path).subscribe(on: .sendingThread) { change in
          guard change == .modified else { return }
          MainActor.assumeIsolated { Copier.copyAppended() }
        }))
  case "watch":
    subscriptions.append(
      Subscription(
        try FileWatch.changes(at: path).subscribe { change in
          if change == .modified { Copier.copyAppended() }
        }))
  case "watch+bytes":
    let changes = try FileWatch.changes(at: path)
    // The watch's modifications as the refill, delivered on the main actor (in the same call,
    // through its gate, as the main thread reads inotify).
    let refills = Producer<Void> { gate in
      changes.subscribe(on: .sendingThread) { change in
        if change == .modified { gate.sendFromCurrentThread(()) }
      }.unsubscribe
    }
    let bytes = try FileDescriptors.bytes(of: fd, ownership: .callerCloses, refill: refills)
    subscriptions.append(
      Subscription(bytes.subscribe(next: { chunk in chunk.withUnsafeBytes { writeOut($0) } })))
  default:
    fail("follow-layers: no layer \(arguments[1])", status: 2)
  }
} catch {
  fail("follow-layers: \(error)", status: 1)
}
do {
  try MainLoop.run()
} catch {
  fail("follow-layers: \(error)", status: 1)
}
