// LeakSanitizer reports memory that XCTest keeps for its test suites until the process exits,
// for a run of one empty test case. Suppression it backs: `libXCTest.so`.
import XCTest

final class EmptyTests: XCTestCase {
  func testNothing() {}
  static let allTests = [("testNothing", testNothing)]
}

XCTMain([testCase(EmptyTests.allTests)])
