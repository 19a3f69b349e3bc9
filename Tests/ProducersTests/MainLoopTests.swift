import Producers
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `MainLoop.run()` off the main thread: refused with a typed error, and nothing changes. (Its
/// loop on the main thread is run by `follow`, whose
/// `FollowCostTests.aLineAppendedIsReadAndPrintedOnOneThread` counts the waits of its threads,
/// and by Guides/MainLoop.md, which CI runs.)
@Suite struct MainLoopTests {
  @Test func anotherThreadIsRefusedAndThePollerGoesOn() async throws {
    #expect(throws: MainLoopError.notMainThread) { try MainLoop.run() }
    // The poller's thread still serves the descriptor streams.
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    let (bytes, arrived) = AsyncStream.makeStream(of: [UInt8].self)
    let reading = try FileDescriptors.bytes(of: ends[0], ownership: .streamCloses).subscribe(
      on: .sendingThread, next: { arrived.yield($0) })
    var byte: UInt8 = 7
    #expect(write(ends[1], &byte, 1) == 1)
    var iterator = bytes.makeAsyncIterator()
    #expect(await iterator.next() == [7])
    reading.unsubscribe()
    close(ends[1])
  }
}
