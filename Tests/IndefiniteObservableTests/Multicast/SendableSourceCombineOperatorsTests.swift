import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Each operator of issue 33 applied to a sendable source, on the main actor, where a value sent
/// from that actor is delivered before `send` returns.
@MainActor @Suite(.checksLiveResources) struct SendableSourceCombineOperatorsTests {
  final class Label {
    var text = ""
  }

  @Test func everyOperatorWorksOnASendableEmitter() {
    let emitter = SendableEmitter<Int>()
    let other = Emitter<Int>()
    var log: [String] = []
    let subscriptions = [
      emitter.stream().flatMap(maxPublishers: 1) { Just($0 * 100) }.subscribe {
        log.append("flatMap \($0)")
      },
      emitter.stream().output(at: 1).subscribe { log.append("output(at:) \($0)") },
      emitter.stream().output(in: 0..<1).subscribe { log.append("output(in:) \($0)") },
      emitter.stream().zip(other, other).subscribe { log.append("zip3 \($0) \($1) \($2)") },
      emitter.stream().zip(other, other, other).subscribe {
        log.append("zip4 \($0) \($1) \($2) \($3)")
      },
      emitter.stream().collect(2).subscribe { log.append("collect \($0)") },
      emitter.stream().handleEvents(receiveOutput: { log.append("handleEvents \($0)") }).subscribe {
        _ in
      },
      emitter.stream().map { $0 }.print("p", to: LogLines { log.append($0) }).subscribe { _ in },
    ]
    emitter.send(1)
    other.send(7)
    emitter.send(2)
    #expect(
      log == [
        "p: receive subscription",
        "flatMap 100", "output(in:) 1", "handleEvents 1", "p: receive value: (1)",
        "zip3 1 7 7", "zip4 1 7 7 7",
        "output(at:) 2", "collect [1, 2]", "handleEvents 2", "p: receive value: (2)",
      ])
    for subscription in subscriptions { subscription.unsubscribe() }
  }

  @Test func assignAndReplaceNilAndMakeConnectableWorkOnASendableCurrentValue() {
    let name = SendableCurrentValue<String?>("Ada")
    let label = Label()
    let assigning = name.stream().replaceNil(with: "nobody").assign(to: \.text, on: label)
    #expect(label.text == "Ada")
    name.send(nil)
    #expect(label.text == "nobody")
    assigning.unsubscribe()

    let texts = SendableCurrentValue("a")
    let direct = Label()
    let writing = texts.stream().assign(to: \.text, on: direct)
    texts.send("b")
    #expect(direct.text == "b")
    writing.unsubscribe()

    let connectable = texts.stream().makeConnectable()
    var seen: [String] = []
    let watching = connectable.subscribe { seen.append($0) }
    let connection = connectable.connect()
    texts.send("c")
    #expect(seen == ["b", "c"])
    connection.unsubscribe()
    watching.unsubscribe()
  }
}

/// A text stream that hands each line to a closure.
private final class LogLines: TextOutputStream {
  private let line: (String) -> Void
  private var pending = ""
  init(_ line: @escaping (String) -> Void) { self.line = line }
  func write(_ string: String) {
    pending += string
    while let end = pending.firstIndex(of: "\n") {
      line(String(pending[..<end]))
      pending = String(pending[pending.index(after: end)...])
    }
  }
}
