import Dispatch
import Foundation
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Ten threads at once on one multicast source: four send numbered values, six subscribe in
/// every way the source offers, send a value of their own and unsubscribe, round after round,
/// while permanent subscribers record everything and one of them sends, subscribes and
/// unsubscribes from its callback. Then the histories are checked against the contract:
///
/// - no delivery begins after the subscription ended: a value whose ticket was drawn after
///   `unsubscribe()` returned (or after the owner was deallocated) never reaches it;
/// - no value is lost for a subscription that stayed, and a synchronous subscriber has the
///   value its own thread sent by the time `send` returns;
/// - each subscriber sees each sender's values in the order they were sent;
/// - the counters agree with what was done, every subscription's closure is released, and
///   the threads finish in time (a deadlock fails the test instead of hanging the run).
@Suite(.checksLiveResources) struct MulticastStressTests {
  static let senders = 4
  static let churners = 6
  /// Each sender sends at least this many values, and goes on while churners are at work.
  static let minimumSends = 1000
  static let roundsPerChurner = 600

  @Test(arguments: StressSubject.all)
  func manyThreadsSendSubscribeAndUnsubscribeWithinTheContract(subject: StressSubject) {
    let source = subject.make()
    let tickets = Counter()
    let synchronous = source.ways[0]
    let queued = source.ways.first { !$0.isSynchronous }!

    let permanent = [Recorder<Stamp>(), Recorder<Stamp>()]
    var ends = [
      synchronous.subscribe(permanent[0].append) {},
      queued.subscribe(permanent[1].append) {},
    ]
    let echoes = Counter()
    ends.append(
      synchronous.subscribe({ stamp in
        guard (0..<Self.senders).contains(stamp.sender), stamp.index.isMultiple(of: 32) else {
          return
        }
        // From the callback: send, and subscribe and unsubscribe.
        echoes.increment()
        source.send(
          Stamp(sender: 100 + stamp.sender, index: stamp.index, ticket: tickets.increment()))
        synchronous.subscribe({ _ in }, {})()
      }) {})

    let churned = Recorder<ChurnLog>()
    let missed = Recorder<String>()
    let churnersDone = Counter()
    let sent = Recorder<Int>()
    let finished = runOnThreads(Self.senders + Self.churners) { thread in
      guard thread >= Self.senders else {
        var index = 0
        while index < Self.minimumSends || (churnersDone.value < Self.churners && index < 100_000) {
          source.send(Stamp(sender: thread, index: index, ticket: tickets.increment()))
          index += 1
        }
        sent.append(index)
        return
      }
      defer { churnersDone.increment() }
      var generator = SeededGenerator(seed: SeededGenerator.seed(ofCase: thread))
      for round in 0..<Self.roundsPerChurner {
        let way = generator.pick(source.ways)
        let log = ChurnLog(way: way)
        let token = Token()
        log.token = token
        let end = way.subscribe({ stamp in
          withExtendedLifetime(token) { log.received.append(stamp) }
        }) {
          log.close(at: tickets.value)
        }
        let own = Stamp(sender: 1000 + thread, index: round, ticket: tickets.increment())
        source.send(own)
        if way.isSynchronous && !log.received.values.contains(own) {
          missed.append("\(way): \(own)")
        }
        end()
        churned.append(log)
      }
    }
    guard finished else { return }
    source.drain()
    #expect(source.subscriberCount() == ends.count)
    for end in ends { end() }
    source.drain()

    let total = tickets.value
    let everyTicket = (source.initial.map { [$0.ticket] } ?? []) + Array(1...total)
    for recorder in permanent {
      let stamps = recorder.values
      #expect(
        stamps.map(\.ticket).sorted() == everyTicket,
        "a permanent subscriber lost or doubled values")
      #expect(outOfOrder(stamps) == [])
    }
    #expect(missed.values == [])
    var late: [String] = []
    var disordered: [String] = []
    var neverEnded: [String] = []
    var kept = 0
    for log in churned.values {
      guard let closedAt = log.closedAt else {
        neverEnded.append("\(log.way)")
        continue
      }
      let stamps = log.received.values
      late += stamps.filter { $0.ticket > closedAt }.map { "\(log.way): \($0) after \(closedAt)" }
      disordered += outOfOrder(stamps).map { "\(log.way): \($0)" }
      if log.token != nil { kept += 1 }
    }
    #expect(late == [], "delivered after the subscription ended")
    #expect(disordered == [])
    #expect(neverEnded == [])
    #expect(kept == 0, "closures of ended subscriptions still alive")
    #expect(echoes.value == sent.values.map { ($0 + 31) / 32 }.reduce(0, +))
    #expect(source.sendCount() == total)
    #expect(source.subscriberCount() == 0)
  }

  /// Where `stamps` break a sender's order: each sender's indices must increase.
  private func outOfOrder(_ stamps: [Stamp]) -> [String] {
    var last: [Int: Int] = [:]
    var breaks: [String] = []
    for stamp in stamps {
      if let previous = last[stamp.sender], previous >= stamp.index {
        breaks.append("\(stamp) after index \(previous)")
      }
      last[stamp.sender] = stamp.index
    }
    return breaks
  }
}

/// What one churned subscription received, and when it ended.
///
/// `@unchecked Sendable`: `closedAt` and `token` are read and written only under `lock`.
private final class ChurnLog: @unchecked Sendable {
  let way: StressWay
  let received = Recorder<Stamp>()
  private let lock = NSLock()
  private var closed: Int?
  private weak var weakToken: Token?

  init(way: StressWay) { self.way = way }

  /// The last ticket drawn when the subscription ended; nil if it never did.
  var closedAt: Int? { lock.withLock { closed } }

  func close(at ticket: Int) { lock.withLock { closed = ticket } }

  /// An object only the subscription's closure keeps: nil once the closure is released.
  var token: Token? {
    get { lock.withLock { weakToken } }
    set { lock.withLock { weakToken = newValue } }
  }
}

/// An object whose only owner is a subscriber's closure.
private final class Token: Sendable {}
