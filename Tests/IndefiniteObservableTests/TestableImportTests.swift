import Testing

@testable import IndefiniteObservable

/// 4.0's own tests import the module with `@testable`, which makes its internal declarations
/// visible: none of them may make 4.0's spelling of a stream ambiguous.
@Suite struct TestableImportTests {
  @Test func aStreamMadeWithATrailingClosureCompilesUnderTestableImport() {
    // "ambiguous use of 'init'" when an internal initializer also takes one closure.
    _ = ValueObservable<Int> { observer in return {} }
    var seen: [Int] = []
    let stream = ValueObservable<Int> { observer in
      observer.next(1)
      return {}
    }
    stream.subscribe { seen.append($0) }.unsubscribe()
    #expect(seen == [1])
  }
}
