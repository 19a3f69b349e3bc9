import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct AssignTests {
  final class Label {
    var text = ""
    var writes = 0 {
      didSet {}
    }
  }

  @Test func writesEveryValueToTheProperty() {
    let source = CallbackSource<String>()
    let label = Label()
    let subscription = source.stream.assign(to: \.text, on: label)
    source.emit("a")
    #expect(label.text == "a")
    source.emit("b")
    #expect(label.text == "b")
    subscription.unsubscribe()
    source.emit("c")
    #expect(label.text == "b")
    #expect(source.observerCount == 0)
  }

  /// Combine's holds the object strongly, which makes `assign(to:on: self)` kept by `self` a
  /// cycle; this one does not keep it.
  @Test func theObjectIsNotKeptAlive() {
    let source = CallbackSource<String>()
    weak var released: Label?
    var subscription: Subscription?
    do {
      let label = Label()
      released = label
      subscription = source.stream.assign(to: \.text, on: label)
      source.emit("a")
      #expect(label.text == "a")
    }
    #expect(released == nil)
    subscription?.unsubscribe()
  }

  @Test func theFirstValueAfterTheObjectIsGoneEndsTheSubscription() {
    let source = CallbackSource<Int>()
    var label: Label? = Label()
    let subscription = source.stream.assign(to: \.writes, on: label!)
    source.emit(1)
    #expect(source.observerCount == 1)
    label = nil
    source.emit(2)
    #expect(source.observerCount == 0)
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func anObjectWhoseSelfKeepsTheSubscriptionIsReleased() {
    final class ViewModel {
      var title = ""
      var subscription: Subscription?
    }
    let source = CallbackSource<String>()
    weak var released: ViewModel?
    do {
      let model = ViewModel()
      released = model
      model.subscription = source.stream.assign(to: \.title, on: model)
      source.emit("hello")
      #expect(model.title == "hello")
    }
    #expect(released == nil)
    source.emit("ignored")
    #expect(source.observerCount == 0)
  }

  @Test func unsubscribingFromInsideAWriteStopsTheWrites() {
    final class Sink {
      var subscription: Subscription?
      var values: [Int] = [] {
        didSet { subscription?.unsubscribe() }
      }
    }
    let source = CallbackSource<Int>()
    let sink = Sink()
    let appending = source.stream.map { [$0] }
    sink.subscription = appending.assign(to: \.values, on: sink)
    source.emit(1)
    source.emit(2)
    #expect(sink.values == [1])
    #expect(source.observerCount == 0)
  }
}
