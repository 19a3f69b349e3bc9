import Benchmark
import Foundation
import IndefiniteObservable
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The library's own line reader, `FileDescriptors.lines`, beside a hand-written loop of `read`
// and `memchr` over the same file. One operation is one line: a sample reads, from its start to
// its end, a regular file of 1,000 lines of 40 bytes (the scaled iterations), and takes each line
// as a `String`. Ours is subscribed on an actor (its `isolation`), where it delivers, so it is
// subscribed and awaited on one, `LineReading`; the sample ends when the stream says
// `.endOfFile`. The floor makes the `String` of each line as the stream does, with
// `String(decoding:as:)` of its bytes, so what ours costs beyond it is the stream: its reader,
// its queue and its hops to the actor.

/// The lines scenario.
func linesBenchmarks() {
  let scenario = "lines of a file"

  Benchmark(name(scenario, "IndefiniteObservable")) { benchmark in
    try await LineReading().read(LinesFile.path, UncheckedSendable(benchmark))
  }

  Benchmark(name(scenario, "hand-written read and memchr (floor)")) { benchmark in
    let fd = open(LinesFile.path, O_RDONLY | O_CLOEXEC)
    defer { close(fd) }
    let receiver = Receiver()
    benchmark.startMeasurement()
    var count = 0
    withUnsafeTemporaryAllocation(byteCount: 4_096, alignment: 1) { buffer in
      var kept = 0  // bytes of an unfinished line at the start of `buffer`
      while true {
        let read = Foundation.read(fd, buffer.baseAddress! + kept, buffer.count - kept)
        guard read > 0 else { break }
        let end = kept + read
        var start = 0
        while start < end,
          let newline = memchr(buffer.baseAddress! + start, 0x0A, end - start)
        {
          let length = buffer.baseAddress!.distance(to: newline) - start
          let line = String(
            decoding: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)]),
            as: UTF8.self)
          receiver.receive(line.utf8.count)
          count += 1
          start += length + 1
        }
        kept = end - start
        if kept > 0 {
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
        }
      }
    }
    benchmark.stopMeasurement()
    precondition(count == LinesFile.lineCount, "read \(count) lines")
  }
}

/// The file every sample reads: 1,000 lines of 40 bytes and a newline, made once in the
/// temporary directory.
enum LinesFile {
  static let lineCount = 1_000
  static let path: String = {
    let path = NSTemporaryDirectory() + "benchmark-lines-\(getpid()).txt"
    let padding = String(repeating: "x", count: 30)
    let text = (0..<lineCount).map { "line \(padding) \(1000 + $0)\n" }.joined()
    guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
      fatalError("lines of a file: cannot write \(path)")
    }
    return path
  }()
}

/// The actor our line stream delivers on in this benchmark; each call measures one sample.
/// `UncheckedSendable`: the benchmark is not `Sendable`, and the closure that hands it over
/// awaits the method, so only the actor touches it meanwhile.
private actor LineReading {
  private var count = 0
  private var finished = false
  private var ended: CheckedContinuation<Void, Never>?

  func read(_ path: String, _ benchmark: UncheckedSendable<Benchmark>) async throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    let receiver = Receiver()
    benchmark.value.startMeasurement()
    let lines = try FileDescriptors.lines(of: fd, ownership: .streamCloses)
    // The first pass is delivered inside `subscribe`, so the end of a short file may come
    // before the wait begins.
    finished = false
    let subscription = lines.subscribe(
      next: { line in
        receiver.receive(line.utf8.count)
        self.count += 1
      },
      status: { status in
        guard case .endOfFile = status else { return }
        self.finished = true
        self.ended?.resume()
        self.ended = nil
      })
    if !finished {
      await withCheckedContinuation { continuation in ended = continuation }
    }
    subscription.unsubscribe()
    benchmark.value.stopMeasurement()
    precondition(count == LinesFile.lineCount, "read \(count) lines")
  }
}
