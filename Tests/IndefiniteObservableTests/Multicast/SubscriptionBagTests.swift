import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct SubscriptionBagTests {
  @Test func aDeallocatedBagUnsubscribesEverything() {
    let emitter = Emitter<Int>()
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    do {
      let bag = SubscriptionBag()
      emitter.subscribe { seen.append($0) }.store(in: bag)
      source.stream.subscribe { seen.append($0 * 10) }.store(in: bag)
      bag.subscribe(to: emitter) { seen.append($0 * 100) }
      emitter.send(1)
      source.emit(2)
      #expect(bag.count == 3)
    }
    emitter.send(3)
    source.emit(4)
    #expect(seen == [1, 100, 20])
    #expect(emitter.subscriberCount == 0)
    #expect(source.disconnects == 1)
  }

  @Test func aBagSubscribesToTheReadOnlyViewOfASingleIsolationSource() {
    let value = CurrentValue(1)
    let view = value.readOnly
    var seen: [Int] = []
    let bag = SubscriptionBag()
    bag.subscribe(to: view) { seen.append($0) }
    value.value = 2
    bag.unsubscribe(from: value)  // the view's source
    value.value = 3
    #expect(seen == [1, 2])
    #expect(value.subscriberCount == 0)
  }

  @Test func aDeallocatedBagReleasesWhatItsSubscriptionsCaptured() {
    let emitter = Emitter<Int>()
    weak var weakCapture: Witness?
    weak var weakBag: SubscriptionBag?
    do {
      let bag = SubscriptionBag()
      weakBag = bag
      let capture = Witness()
      weakCapture = capture
      emitter.subscribe { capture.received.append($0) }.store(in: bag)
    }
    #expect(weakBag == nil)
    #expect(weakCapture == nil)
  }

  @Test func anObjectsBagEndsItsSubscriptionsWithIt() {
    final class Screen {
      let bag = SubscriptionBag()
      var lines: [String] = []
      init(log: Emitter<String>) {
        log.subscribe { [unowned self] in lines.append($0) }.store(in: bag)
      }
    }
    let log = Emitter<String>()
    weak var weakScreen: Screen?
    do {
      let screen = Screen(log: log)
      weakScreen = screen
      log.send("hello")
      #expect(screen.lines == ["hello"])
    }
    #expect(weakScreen == nil)
    #expect(log.subscriberCount == 0)
    log.send("nobody listens")
  }

  @Test func theBagDoesNotKeepItsSources() {
    let bag = SubscriptionBag()
    weak var weakEmitter: Emitter<Int>?
    do {
      let emitter = Emitter<Int>()
      weakEmitter = emitter
      bag.subscribe(to: emitter) { _ in }
    }
    #expect(weakEmitter == nil)
    bag.unsubscribeAll()
  }

  @Test func unsubscribeFromEndsOnlyThatSourcesSubscriptions() {
    let bag = SubscriptionBag()
    let first = Emitter<Int>()
    let second = Emitter<Int>()
    var seen: [Int] = []
    bag.subscribe(to: first) { seen.append($0) }
    bag.subscribe(to: first) { seen.append($0 * 10) }
    bag.subscribe(to: second) { seen.append($0 * 100) }
    bag.unsubscribe(from: first)
    first.send(1)
    second.send(2)
    #expect(seen == [200])
    #expect(bag.count == 1)
    #expect(first.subscriberCount == 0)
  }

  @Test func unsubscribeAllEmptiesTheBagWhichStaysUsable() {
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    emitter.subscribe { seen.append($0) }.store(in: bag)
    bag.unsubscribeAll()
    #expect(bag.count == 0)
    emitter.send(1)
    emitter.subscribe { seen.append($0) }.store(in: bag)
    emitter.send(2)
    #expect(seen == [2])
  }

  @Test func aDisconnectMayUseTheBagWhileItUnsubscribes() {
    let bag = SubscriptionBag()
    var later: [Int] = []
    let emitter = Emitter<Int>()
    Subscription {
      emitter.subscribe { later.append($0) }.store(in: bag)
    }.store(in: bag)
    bag.unsubscribeAll()
    emitter.send(1)
    #expect(later == [1])
    #expect(bag.count == 1)
  }

  @Test func unsubscribeFromAStreamThatReusedAFreedStreamsAddressEndsNothingElse() {
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    var freedAddress: ObjectIdentifier?
    do {
      let freed = emitter.map { $0 }
      freedAddress = ObjectIdentifier(freed)
      bag.subscribe(to: freed) { seen.append($0) }
    }
    // Make streams of the same size until one gets the freed stream's address.
    var reused: ValueObservable<Int>?
    for _ in 0..<1000 {
      let candidate = emitter.map { $0 + 100 }
      if ObjectIdentifier(candidate) == freedAddress {
        reused = candidate
        break
      }
    }
    guard let reused else { return }  // the allocator gave the address to nothing: no test
    bag.unsubscribe(from: reused)
    emitter.send(1)
    #expect(seen == [1], "unsubscribe(from:) of another stream ended this subscription")
    bag.unsubscribeAll()
  }

  @Test func subscriptionsEndedOneByOneLeaveTheBag() {
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    for _ in 0..<50_000 {
      bag.subscribe(to: emitter) { _ in }.unsubscribe()
      let stored = emitter.subscribe { _ in }
      stored.store(in: bag)
      stored.unsubscribe()
    }
    #expect(bag.count == 0, "the bag counts \(bag.count) subscriptions that had ended")
  }

  // MARK: Ending what one object feeds (ZCRMailbox's unsubscribeFrom: an object)

  @Test func unsubscribeFromAnObjectEndsEverySubscriptionAboutIt() {
    final class Newsletter {
      let title = CurrentValue("a")
      let posts = Emitter<String>()
      let editions = CallbackSource<Int>()
    }
    let first = Newsletter()
    let second = Newsletter()
    let bag = SubscriptionBag()
    var seen: [String] = []
    bag.subscribe(to: first.title, about: first) { seen.append("first title \($0)") }
    bag.subscribe(to: first.posts, about: first) { seen.append("first post \($0)") }
    first.editions.stream.subscribe { seen.append("first edition \($0)") }
      .store(in: bag, about: first)
    first.posts.subscribe { seen.append("first post again \($0)") }.store(in: bag, about: first)
    bag.subscribe(to: second.title, about: second) { seen.append("second title \($0)") }
    seen = []

    bag.unsubscribe(from: first)
    first.title.value = "b"
    first.posts.send("p")
    first.editions.emit(1)
    second.title.value = "c"
    #expect(seen == ["second title c"])
    #expect(first.title.subscriberCount + first.posts.subscriberCount == 0)
    #expect(first.editions.observerCount == 0)
    #expect(bag.count == 1)
    bag.unsubscribeAll()
  }

  @Test func aStreamThatNamesItsObjectIsFiledUnderIt() {
    final class Model {
      let changes = Emitter<Int>()
    }
    final class StreamOfModel: ValueObservable<Int>, StreamOfObject {
      let model: Model
      var streamedObject: AnyObject? { model }
      init(_ model: Model) {
        self.model = model
        super.init { observer in
          let subscription = model.changes.subscribe(observer.next)
          return subscription.unsubscribe
        }
      }
    }
    let model = Model()
    let other = Model()
    let bag = SubscriptionBag()
    var seen: [Int] = []
    bag.subscribe(to: StreamOfModel(model)) { seen.append($0) }
    bag.subscribe(to: StreamOfModel(model).map { $0 * 10 }, about: model) { seen.append($0) }
    bag.subscribe(to: StreamOfModel(other)) { seen.append($0 * 100) }
    bag.unsubscribe(from: model)
    model.changes.send(1)
    other.changes.send(2)
    #expect(seen == [200])
    #expect(model.changes.subscriberCount == 0)
    bag.unsubscribeAll()
  }

  @Test func anExplicitObjectReplacesTheOneAStreamNames() {
    final class Model {
      let changes = Emitter<Int>()
    }
    final class StreamOfModel: ValueObservable<Int>, StreamOfObject {
      let model: Model
      var streamedObject: AnyObject? { model }
      init(_ model: Model) {
        self.model = model
        super.init { observer in model.changes.subscribe(observer.next).unsubscribe }
      }
    }
    let model = Model()
    let screen = Witness()
    let bag = SubscriptionBag()
    var seen: [Int] = []
    bag.subscribe(to: StreamOfModel(model), about: screen) { seen.append($0) }
    bag.unsubscribe(from: model)
    model.changes.send(1)
    bag.unsubscribe(from: screen)
    model.changes.send(2)
    #expect(seen == [1])
  }

  @Test func unsubscribeFromASourceStillEndsWhatWasMadeToIt() {
    let bag = SubscriptionBag()
    let owner = Witness()
    let emitter = Emitter<Int>()
    var seen: [Int] = []
    bag.subscribe(to: emitter, about: owner) { seen.append($0) }
    bag.unsubscribe(from: emitter)
    emitter.send(1)
    #expect(seen.isEmpty)
    #expect(bag.count == 0)
  }

  @Test func theBagDoesNotKeepTheObjectsItsSubscriptionsAreAbout() {
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    weak var weakObject: Witness?
    do {
      let object = Witness()
      weakObject = object
      bag.subscribe(to: emitter, about: object) { _ in }
      emitter.subscribe { _ in }.store(in: bag, about: object)
    }
    #expect(weakObject == nil)
    #expect(bag.count == 2)
    bag.unsubscribe(from: Witness())
    #expect(bag.count == 2)
    bag.unsubscribeAll()
  }

  // MARK: A repeated stream

  @Test func subscribeToTheSameStreamAboutTheSameObjectTwiceMakesTwoSubscriptions() {
    // The documented rule of `subscribe(to:about:)`: each call subscribes.
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    let object = Witness()
    var seen: [String] = []
    bag.subscribe(to: emitter, about: object) { seen.append("first \($0)") }
    bag.subscribe(to: emitter, about: object) { seen.append("second \($0)") }
    emitter.send(1)
    #expect(seen == ["first 1", "second 1"])
    #expect(bag.count == 2)
  }

  @Test func subscribeOnceRefusesASecondSubscriptionToTheSameStreamAboutTheSameObject() throws {
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    let object = Witness()
    var seen: [String] = []
    let first = try bag.subscribeOnce(to: emitter, about: object) { seen.append("first \($0)") }
    #expect {
      try bag.subscribeOnce(to: emitter, about: object) { seen.append("second \($0)") }
    } throws: { error in
      error is SubscriptionBag.AlreadySubscribed && !first.isUnsubscribed
    }
    emitter.send(1)
    #expect(seen == ["first 1"])
    #expect(emitter.subscriberCount == 1)
    // Another object, or none, is another subscription.
    try bag.subscribeOnce(to: emitter, about: Witness()) { seen.append("other \($0)") }
    try bag.subscribeOnce(to: emitter) { seen.append("none \($0)") }
    #expect(emitter.subscriberCount == 3)
    bag.unsubscribeAll()
  }

  @Test func subscribeOnceSubscribesAgainOnceTheFirstHasEnded() throws {
    let bag = SubscriptionBag()
    let emitter = Emitter<Int>()
    let object = Witness()
    var seen: [Int] = []
    try bag.subscribeOnce(to: emitter, about: object) { seen.append($0) }.unsubscribe()
    try bag.subscribeOnce(to: emitter, about: object) { seen.append($0 * 10) }
    bag.unsubscribe(from: object)
    try bag.subscribeOnce(to: emitter, about: object) { seen.append($0 * 100) }
    bag.unsubscribeAll()
    try bag.subscribeOnce(to: emitter, about: object) { seen.append($0 * 1000) }
    emitter.send(1)
    #expect(seen == [1000])
    #expect(emitter.subscriberCount == 1)
    bag.unsubscribeAll()
  }
}
