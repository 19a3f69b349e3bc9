import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct WithUnretainedTests {
  final class Screen {
    var titles: [String] = []
  }

  @Test func passesEachValueWithTheObject() {
    let titles = CallbackSource<String>()
    let screen = Screen()
    var objects: [ObjectIdentifier] = []
    let subscription = titles.stream.withUnretained(screen).subscribe { screen, title in
      screen.titles.append(title)
      objects.append(ObjectIdentifier(screen))
    }
    titles.emit("Inbox")
    titles.emit("Drafts")
    #expect(screen.titles == ["Inbox", "Drafts"])
    #expect(objects == [ObjectIdentifier(screen), ObjectIdentifier(screen)])
    subscription.unsubscribe()
    #expect(titles.disconnects == 1)
  }

  @Test func neitherTheStreamNorItsSubscriptionKeepsTheObject() {
    let titles = CallbackSource<String>()
    weak var gone: Screen?
    var stream: ValueObservable<(Screen, String)>?
    var subscription: Subscription?
    do {
      let screen = Screen()
      gone = screen
      stream = titles.stream.withUnretained(screen)
      subscription = stream?.subscribe { _ in }
    }
    #expect(gone == nil)
    #expect(stream != nil)
    subscription?.unsubscribe()
  }

  @Test func theFirstValueAfterTheObjectIsGoneIsDroppedAndDisconnects() {
    let titles = CallbackSource<String>()
    var screen: Screen? = Screen()
    var seen: [String] = []
    let subscription = titles.stream.withUnretained(screen!).subscribe { seen.append($1) }
    titles.emit("Inbox")
    screen = nil
    #expect(titles.observerCount == 1)
    titles.emit("Drafts")
    titles.emit("Sent")
    #expect(seen == ["Inbox"])
    #expect(titles.observerCount == 0 && titles.disconnects == 1)
    subscription.unsubscribe()
    #expect(titles.disconnects == 1)
  }

  @Test func subscribingWhenTheObjectIsGoneConnectsNothing() {
    let titles = SynchronousSource(["Inbox"])
    var screen: Screen? = Screen()
    let stream = titles.stream.withUnretained(screen!)
    screen = nil
    var seen: [String] = []
    let subscription = stream.subscribe { seen.append($1) }
    subscription.unsubscribe()
    #expect(seen == [])
    #expect(titles.connects == 0)
  }

  /// The object goes while the stream sends synchronously on connect: the value that finds it
  /// gone ends the slot, and the upstream is disconnected as soon as its connect returns.
  @Test func anObjectLostWhileConnectingDisconnectsBeforeSubscribeReturns() {
    var screen: Screen? = Screen()
    var disconnects = 0
    var seen: [String] = []
    let stream = ValueObservable<String> { observer in
      observer.next("Inbox")
      screen = nil
      observer.next("Drafts")
      return { disconnects += 1 }
    }
    let subscription = stream.withUnretained(screen!).subscribe { seen.append($1) }
    #expect(seen == ["Inbox"])
    #expect(disconnects == 1)
    subscription.unsubscribe()
    #expect(disconnects == 1)
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let titles = CallbackSource<String>()
    let screen = Screen()
    var subscription: Subscription?
    subscription = titles.stream.withUnretained(screen).subscribe { screen, title in
      screen.titles.append(title)
      subscription?.unsubscribe()
    }
    titles.emit("Inbox")
    titles.emit("Drafts")
    #expect(screen.titles == ["Inbox"])
    #expect(titles.observerCount == 0 && titles.disconnects == 1)
  }

  @Test func eachSubscriptionConnectsItsOwnUpstream() {
    let titles = CallbackSource<String>()
    let screen = Screen()
    let stream = titles.stream.withUnretained(screen)
    let first = stream.subscribe { $0.titles.append("1:\($1)") }
    let second = stream.subscribe { $0.titles.append("2:\($1)") }
    titles.emit("Inbox")
    #expect(screen.titles == ["1:Inbox", "2:Inbox"])
    #expect(titles.connects == 2)
    first.unsubscribe()
    second.unsubscribe()
    #expect(titles.disconnects == 2)
  }
}
