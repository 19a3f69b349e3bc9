import Foundation
import IndefiniteObservable
import Testing

/// A trait that checks, after every test it applies to, that the library's live resources
/// (subscriptions, subscribers kept by sources, Dispatch sources, descriptors and signal
/// handlers; see `LiveResources`) are back at the counts they had when the test started.
///
/// Apply it to every suite: `@Suite(.checksLiveResources)`. It is recursive, so nested suites
/// and every test case of a parameterized test are checked.
///
/// The counts are process-wide, so a test is only checked exactly when no other test runs at
/// the same time: the check is on when the environment variable `CHECK_LIVE_RESOURCES` is `1`,
/// which CI sets for a run with `swift test --no-parallel`. In a parallel run the trait does
/// nothing. If it finds another checked test running beside the one it checks, it records an
/// issue saying that the run must be serial, rather than reporting a false leak.
///
/// Resources released asynchronously (a Dispatch source's cancel handler, a delivery waiting on
/// a queue) are given a few seconds to go after the test returns; a leak fails the test and
/// names each kind of resource with how many are left over.
public struct LiveResourcesCheck: SuiteTrait, TestTrait, TestScoping {
  /// Whether this process checks live resources: `CHECK_LIVE_RESOURCES=1`.
  public static let isEnabled = ProcessInfo.processInfo.environment["CHECK_LIVE_RESOURCES"] == "1"

  /// How long resources released asynchronously have to go once the test has returned.
  static let grace: Duration = .seconds(3)

  /// True: nested suites are checked too.
  public var isRecursive: Bool { true }

  /// Checks each test case: every test function, and every argument of a parameterized one.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  /// Runs the test, then waits until the counts are back where they were, or records an issue.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    guard Self.isEnabled else { return try await function() }
    guard LiveResources.areCounted else {
      Issue.record("CHECK_LIVE_RESOURCES=1 needs a debug build: release builds count nothing")
      return try await function()
    }
    let alone = running.enter()
    defer { running.leave() }
    guard let alone else {
      Issue.record(
        """
        CHECK_LIVE_RESOURCES=1 needs a serial run (swift test --no-parallel): another test was \
        running, so live resources cannot be counted for this one
        """, sourceLocation: test.sourceLocation)
      return try await function()
    }
    let before = LiveResources.counts
    try await function()
    let after = await Self.counts(settlingAt: before)
    // A test that started meanwhile reported the parallel run; these counts include its own.
    guard !running.overlapped(since: alone) else { return }
    let leftOver = LiveResources.Kind.allCases.compactMap { kind -> String? in
      let difference = after[kind, default: 0] - before[kind, default: 0]
      return difference == 0 ? nil : "\(kind) \(difference > 0 ? "+" : "")\(difference)"
    }
    if !leftOver.isEmpty {
      Issue.record(
        "live resources left over by the test: \(leftOver.joined(separator: ", "))",
        sourceLocation: test.sourceLocation)
    }
  }

  /// The counts once they equal `expected`, or when the grace period has passed.
  private static func counts(
    settlingAt expected: [LiveResources.Kind: Int]
  ) async -> [LiveResources.Kind: Int] {
    let clock = ContinuousClock()
    let deadline = clock.now + grace
    while true {
      let counts = LiveResources.counts
      if counts == expected || clock.now >= deadline { return counts }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}

extension Trait where Self == LiveResourcesCheck {
  /// Checks that every test leaves the library's live resources where it found them, in runs
  /// with `CHECK_LIVE_RESOURCES=1` (see ``LiveResourcesCheck``).
  public static var checksLiveResources: Self { Self() }
}

/// The checked tests running now.
private let running = RunningTests()

/// Counts the checked tests in progress, to detect a run that is not serial.
///
/// `@unchecked Sendable`: `count` and `overlaps` are read and written only under `lock`.
private final class RunningTests: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private var overlaps = 0

  /// Counts one more test in progress. When it is the only one, returns a mark for
  /// ``overlapped(since:)``; nil when another test is running.
  func enter() -> Int? {
    lock.withLock {
      count += 1
      if count == 1 { return overlaps }
      overlaps += 1
      return nil
    }
  }

  /// Whether a test started beside another one since `enter` returned `mark`.
  func overlapped(since mark: Int) -> Bool {
    lock.withLock { overlaps != mark }
  }

  func leave() {
    lock.withLock { count -= 1 }
  }
}
