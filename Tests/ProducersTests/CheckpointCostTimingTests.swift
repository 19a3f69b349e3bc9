import Foundation
import Producers
import Testing

/// Moving a checkpoint past a few bytes costs about the same whether its window of 4 KiB is
/// full or not: the window is not shifted down at each move.
///
/// Two measurements of one run, not a deadline: 4,000 moves of one byte each from an empty
/// checkpoint (the window fills, nothing leaves it), against 4,000 from a checkpoint whose
/// window is full (a byte leaves it at each move); each the least of five tries. Before the
/// change, each move past a full window moved the 4,095 bytes that stayed down by one, once
/// for each line `follow` printed and twice in its reader and its printed position.
///
/// A time, which a parallel run shares with every other test: so it runs only when
/// `TIMING_TESTS=1` is set, which `.ci/run` does in a step of its own (see
/// `FloodLatencyTimingTests`).
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["TIMING_TESTS"] == "1",
    "compares times: run alone, with TIMING_TESTS=1"))
struct CheckpointCostTimingTests {
  static let moves = 4_000
  static let tries = 5

  @Test func movingPastAByteCostsTheSameWithAFullWindow() {
    let full: FileCheckpoint = {
      var checkpoint = FileCheckpoint()
      checkpoint.advance(over: [UInt8](repeating: 0x41, count: FileCheckpoint.windowLimit))
      return checkpoint
    }()
    var filling = UInt64.max
    var sliding = UInt64.max
    for _ in 0..<Self.tries {
      filling = min(filling, Self.time(from: FileCheckpoint()))
      sliding = min(sliding, Self.time(from: full))
    }
    let ratio = Double(sliding) / Double(filling)
    print(
      "4,000 moves of a byte: \(filling / 1000) µs from empty, \(sliding / 1000) µs past a full "
        + "window (\(String(format: "%.2f", ratio))x)")
    #expect(ratio < 2)
  }

  /// The nanoseconds that `moves` moves of one byte take from `start`.
  static func time(from start: FileCheckpoint) -> UInt64 {
    var checkpoint = start
    let byte: [UInt8] = [0x0A]
    let begin = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<moves { checkpoint.advance(over: byte) }
    let end = DispatchTime.now().uptimeNanoseconds
    #expect(checkpoint.offset == start.offset + Int64(moves))
    return end - begin
  }
}
