import Benchmark
import Dispatch
import Foundation
import IndefiniteObservable
import Producers

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#endif

// A byte written to a pipe until a subscriber has it: the producers' path from the system to
// an actor. Ping-pong: the receiver writes the next byte once it has the last, so a sample of
// 1,000 bytes is 1,000 events one after the other, and its wall time over 1,000 is the latency
// of one (write to received). CPU time is the whole process's (user + system: the reader's
// thread, the hop and the actor). Four ways over the same kind of pipe:
// - `FileDescriptors.bytes`, delivered on an actor (read on the package's poller thread, one
//   hop to the actor); and the same beside 1,000 other pipe streams that wait with nothing to
//   read, whose cost must be the same (the poller waits with epoll on Linux);
// - a hand-written `poll` loop on a thread of its own that reads and hops to the same actor
//   with a task (the floor for delivery on an actor: the same one hop, and nothing else);
// - a `DispatchSource` read source whose handler reads and hops to the same actor with a task,
//   as one writes it by hand with Dispatch (its event reaches the handler through Dispatch's
//   manager thread: two switches);
// - a hand-written `poll` loop on a thread of its own that reads and writes the next byte
//   itself, with no hop at all (the floor of the system calls).

/// The pipe rows.
func pipeByteBenchmarks() {
  let scenario = "pipe byte to subscriber"
  var configuration = Benchmark.defaultConfiguration
  configuration.metrics =
    checkingAllocations ? [.mallocCountTotal] : [.cpuTotal, .wallClock, .mallocCountTotal]
  configuration.maxIterations = checkingAllocations ? allocationCheckSamples : 20
  configuration.maxDuration = .seconds(5)

  Benchmark(name(scenario, "IndefiniteObservable"), configuration: configuration) { benchmark in
    await PipeReceiver().fileDescriptors(UncheckedSendable(benchmark))
  }

  Benchmark(
    name(scenario, "IndefiniteObservable, beside 1,000 idle streams"), configuration: configuration
  ) { benchmark in
    await PipeReceiver().fileDescriptors(UncheckedSendable(benchmark), idleBeside: 1_000)
  }

  Benchmark(
    name(scenario, "poll loop, a task to the actor (floor)"), configuration: configuration
  ) { benchmark in
    await PipeReceiver().pollThread(UncheckedSendable(benchmark))
  }

  Benchmark(
    name(scenario, "DispatchSource read source, a task to the actor"),
    configuration: configuration
  ) { benchmark in
    await PipeReceiver().readSource(UncheckedSendable(benchmark))
  }

  Benchmark(name(scenario, "poll loop, no hop"), configuration: configuration) { benchmark in
    let count = benchmark.scaledIterations.count
    let (readEnd, writeEnd) = makePipe()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
      var byte: UInt8 = 0
      var received = 0
      while received < count {
        guard poll(&entry, 1, -1) > 0 else { continue }
        while read(readEnd, &byte, 1) == 1 {
          received += 1
          if received < count { _ = write(writeEnd, &byte, 1) }
        }
      }
      done.signal()
    }
    benchmark.startMeasurement()
    thread.start()
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
    done.wait()
    benchmark.stopMeasurement()
    close(readEnd)
    close(writeEnd)
  }
}

/// Raises the soft limit of open descriptors to `count`, if it is lower (within the hard limit).
private func allowDescriptors(_ count: Int) {
  #if canImport(Glibc)
    let resource = Int32(RLIMIT_NOFILE.rawValue)
  #else
    let resource = RLIMIT_NOFILE
  #endif
  var limit = rlimit()
  getrlimit(resource, &limit)
  guard limit.rlim_cur < rlim_t(count) else { return }
  limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
  setrlimit(resource, &limit)
}

/// A pipe whose read end does not block.
private func makePipe() -> (read: Int32, write: Int32) {
  var ends: [Int32] = [0, 0]
  precondition(pipe(&ends) == 0)
  _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
  return (ends[0], ends[1])
}

/// The actor the bytes are delivered to. Each method measures one sample: it returns once the
/// actor has received the sample's bytes, each written once the one before it was received.
private actor PipeReceiver {
  private var count = 0
  private var target = 0
  private var writeEnd: Int32 = -1
  private var reached: CheckedContinuation<Void, Never>?

  private func received(_ bytes: Int) {
    count += bytes
    guard count < target else {
      reached.take()?.resume()
      return
    }
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  private func run(_ target: Int) async {
    self.target = target
    await withCheckedContinuation { continuation in
      reached = continuation
      var byte: UInt8 = 1
      _ = write(writeEnd, &byte, 1)
    }
  }

  /// `idleBeside`: how many other pipe streams wait meanwhile, with nothing to read (the cost
  /// of a byte must not grow with them).
  func fileDescriptors(_ benchmark: UncheckedSendable<Benchmark>, idleBeside: Int = 0) async {
    let benchmark = benchmark.value
    var idle: [(SendableSubscription, Int32)] = []
    allowDescriptors(2 * idleBeside + 100)
    for _ in 0..<idleBeside {
      let (readEnd, writeEnd) = makePipe()
      let bytes = try! FileDescriptors.bytes(of: readEnd, ownership: .streamCloses)
      idle.append((bytes.subscribe(next: { _ in }), writeEnd))
    }
    defer {
      for (subscription, writeEnd) in idle {
        subscription.unsubscribe()
        close(writeEnd)
      }
    }
    let (readEnd, writeEnd) = makePipe()
    self.writeEnd = writeEnd
    let bytes = try! FileDescriptors.bytes(of: readEnd, ownership: .streamCloses)
    let subscription = bytes.subscribe(next: { chunk in self.received(chunk.count) })
    benchmark.startMeasurement()
    await run(benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
    subscription.unsubscribe()
    close(writeEnd)
  }

  func pollThread(_ benchmark: UncheckedSendable<Benchmark>) async {
    let benchmark = benchmark.value
    let (readEnd, writeEnd) = makePipe()
    let (stopRead, stopWrite) = makePipe()
    self.writeEnd = writeEnd
    // The thread closes the ends it reads once it sees the stop byte.
    let thread = Thread { [self] in
      var entries = [
        pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
      ]
      var byte: UInt8 = 0
      while entries[1].revents == 0 {
        guard poll(&entries, 2, -1) > 0, entries[0].revents != 0 else { continue }
        var got = 0
        while read(readEnd, &byte, 1) == 1 { got += 1 }
        if got > 0 { Task { await self.received(got) } }
      }
      close(readEnd)
      close(stopRead)
    }
    thread.start()
    benchmark.startMeasurement()
    await run(benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
    var byte: UInt8 = 1
    _ = write(stopWrite, &byte, 1)
    close(stopWrite)
    close(writeEnd)
  }

  func readSource(_ benchmark: UncheckedSendable<Benchmark>) async {
    let benchmark = benchmark.value
    let (readEnd, writeEnd) = makePipe()
    self.writeEnd = writeEnd
    let source = DispatchSource.makeReadSource(
      fileDescriptor: readEnd, queue: DispatchQueue(label: "read source"))
    source.setEventHandler { @Sendable [self] in
      var byte: UInt8 = 0
      var got = 0
      while read(readEnd, &byte, 1) == 1 { got += 1 }
      if got > 0 { Task { await self.received(got) } }
    }
    source.activate()
    benchmark.startMeasurement()
    await run(benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
    source.cancel()
    close(writeEnd)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { close(readEnd) }
  }
}
