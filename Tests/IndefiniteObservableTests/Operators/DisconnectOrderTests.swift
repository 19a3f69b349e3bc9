import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The order in which each operator that holds several subscriptions ends them, as the
/// Guarantees guide states it.
@Suite(.checksLiveResources) struct DisconnectOrderTests {
  /// A stream that records its name when it is disconnected.
  final class Streams {
    var order: [String] = []
    func stream(_ name: String) -> ValueObservable<Int> {
      ValueObservable { _ in { self.order.append(name) } }
    }
  }

  @Test func streamsSideBySideAreDisconnectedInTheOrderTheyConnected() {
    let abc = ["a", "b", "c"]
    let cases: [(name: String, order: [String], make: (Streams) -> ValueObservable<Void>)] = [
      (
        "merge(with:)", abc,
        { $0.stream("a").merge(with: $0.stream("b"), $0.stream("c")).map { _ in } }
      ),
      (
        "Sequence.merge()", abc,
        { [$0.stream("a"), $0.stream("b"), $0.stream("c")].merge().map { _ in } }
      ),
      (
        "combineLatest(_:)", ["a", "b"],
        { $0.stream("a").combineLatest($0.stream("b")).map { _ in } }
      ),
      (
        "combineLatest(_:_:)", abc,
        { $0.stream("a").combineLatest($0.stream("b"), $0.stream("c")).map { _ in } }
      ),
      (
        "combineLatest(_:_:_:)", abc + ["d"],
        {
          $0.stream("a").combineLatest($0.stream("b"), $0.stream("c"), $0.stream("d"))
            .map { _ in }
        }
      ),
      (
        "Sequence.combineLatest()", abc,
        { [$0.stream("a"), $0.stream("b"), $0.stream("c")].combineLatest().map { _ in } }
      ),
      ("zip(_:)", ["a", "b"], { $0.stream("a").zip($0.stream("b")).map { _ in } }),
      ("zip(_:_:)", abc, { $0.stream("a").zip($0.stream("b"), $0.stream("c")).map { _ in } }),
      (
        "zip(_:_:_:)", abc + ["d"],
        { $0.stream("a").zip($0.stream("b"), $0.stream("c"), $0.stream("d")).map { _ in } }
      ),
    ]
    for (name, order, make) in cases {
      let streams = Streams()
      make(streams).subscribe { _ in }.unsubscribe()
      #expect(streams.order == order, "\(name)")
    }
  }
}
