import Foundation

/// A small random number generator (SplitMix64) whose numbers depend only on its seed, so a
/// randomized test that prints its seed can be replayed exactly.
///
/// It does its own range reduction, so the numbers a seed gives do not depend on how the
/// standard library implements `random(in:using:)`.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator that produces the sequence of `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<bound`; `bound` must be positive.
  public mutating func below(_ bound: Int) -> Int {
    precondition(bound > 0, "below(\(bound)): the bound must be positive")
    return Int(next() % UInt64(bound))
  }

  /// True with probability `1 / n`.
  public mutating func oneIn(_ n: Int) -> Bool {
    below(n) == 0
  }

  /// A random element of `elements`, which must not be empty.
  public mutating func pick<C: Collection>(_ elements: C) -> C.Element {
    elements[elements.index(elements.startIndex, offsetBy: below(elements.count))]
  }

  /// The seed that derives the seeds of this run's randomized tests: `RANDOM_SEED` from the
  /// environment (decimal, or hexadecimal with `0x`), else a fresh one per process.
  public static let runSeed: UInt64 = {
    if let text = ProcessInfo.processInfo.environment["RANDOM_SEED"] {
      let seed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
      if let seed { return seed }
    }
    return UInt64.random(in: .min ... .max)
  }()

  /// The seed of case `index` of a randomized test: a different sequence for each case, all
  /// derived from ``runSeed``.
  public static func seed(ofCase index: Int) -> UInt64 {
    var generator = SeededGenerator(seed: runSeed &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
    return generator.next()
  }

  /// How to replay case `index`: the environment variable that gives this run's seeds again.
  public static func replayHint(case index: Int) -> String {
    "case \(index) of RANDOM_SEED=0x\(String(runSeed, radix: 16)) (set it to replay this run)"
  }
}
