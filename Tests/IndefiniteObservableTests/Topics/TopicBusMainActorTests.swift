import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@MainActor private final class Screen {
  var shown: [String] = []
}

@MainActor private final class ViewController: Sendable {
  var title = ""
}

@MainActor @Suite(.checksLiveResources) struct TopicBusMainActorTests {
  private let topic = Topic<String>("title")

  @Test @MainActor func anEventPublishedOnTheMainActorIsDeliveredBeforePublishReturns() {
    let bus = TopicBus()
    let screen = Screen()
    bus.source(for: topic).subscribe { screen.shown.append($0.payload) }
    bus.publish(topic, "now")
    #expect(screen.shown == ["now"])
  }

  @Test @MainActor func anEventPublishedElsewhereArrivesLaterOnTheMainActor() async {
    let bus = TopicBus()
    let screen = Screen()
    let topic = self.topic
    bus.source(for: topic).subscribe { event in
      MainActor.preconditionIsolated()
      screen.shown.append(event.payload)
    }
    onAnotherThread { bus.publish(topic, "later") }
    #expect(screen.shown.isEmpty)
    #expect(await eventually { screen.shown == ["later"] })
  }

  @Test @MainActor func aMainActorPublishDeliversTheEarlierQueuedEventsFirst() async {
    let bus = TopicBus()
    let screen = Screen()
    let topic = self.topic
    bus.source(for: topic).subscribe { screen.shown.append($0.payload) }
    onAnotherThread {
      bus.publish(topic, "1")
      bus.publish(topic, "2")
    }
    #expect(screen.shown.isEmpty)  // 1 and 2 wait for their hop
    bus.publish(topic, "3")  // on the main actor: 1 and 2 first, then 3, before it returns
    #expect(screen.shown == ["1", "2", "3"])
    bus.publish(topic, "4")  // nothing waits any more: at once
    #expect(screen.shown == ["1", "2", "3", "4"])
  }

  @Test @MainActor func aHandlerPublishingOnTheMainActorKeepsOrder() {
    let bus = TopicBus()
    let screen = Screen()
    let topic = self.topic
    // The handler captures the bus, so the test ends its subscription itself.
    let subscription = bus.source(for: topic).subscribe { event in
      screen.shown.append(event.payload)
      if event.payload == "1" { bus.publish(topic, "2") }  // queued until 1 is done
      screen.shown.append("end \(event.payload)")
    }
    bus.publish(topic, "1")
    #expect(screen.shown == ["1", "end 1", "2", "end 2"])
    subscription.unsubscribe()
  }

  @Test @MainActor func ownerHandlersGetTheOwnerOnTheMainActor() async {
    let bus = TopicBus()
    let controller = ViewController()
    let topic = self.topic
    bus.source(for: topic).subscribe(controller) { me, event in me.title = event.payload }
    bus.publish(topic, "Inbox")
    #expect(controller.title == "Inbox")
    onAnotherThread { bus.publish(topic, "Sent") }
    #expect(await eventually { controller.title == "Sent" })
    bus.unsubscribe(controller)
    bus.publish(topic, "Drafts")
    #expect(controller.title == "Sent")
  }

  @Test @MainActor func anOwnerDeallocatedBeforeDeliveryGetsNothing() async {
    let bus = TopicBus()
    let topic = self.topic
    let screen = Screen()
    weak var weakController: ViewController?
    do {
      let controller = ViewController()
      weakController = controller
      bus.source(for: topic).subscribe(controller) { _, event in
        screen.shown.append(event.payload)
      }
      onAnotherThread { bus.publish(topic, "queued") }
    }
    #expect(weakController == nil)
    await settle()
    #expect(screen.shown.isEmpty)
  }

  @Test @MainActor func onceOnTheMainActorDeliversOneEventEvenWhenQueued() async {
    let bus = TopicBus()
    let screen = Screen()
    let topic = self.topic
    bus.source(for: topic).subscribe(limit: 1) { screen.shown.append($0.payload) }
    DispatchQueue.concurrentPerform(iterations: 8) { bus.publish(topic, "\($0)") }
    #expect(await eventually { screen.shown.count == 1 })
    bus.publish(topic, "main")
    await settle()
    #expect(screen.shown.count == 1)
  }

  @Test @MainActor func unsubscribeDropsQueuedEvents() async {
    let bus = TopicBus()
    let screen = Screen()
    let topic = self.topic
    let subscription = bus.source(for: topic).subscribe { screen.shown.append($0.payload) }
    onAnotherThread {
      for i in 0..<5 { bus.publish(topic, "\(i)") }
    }
    subscription.unsubscribe()
    await settle()
    #expect(screen.shown.isEmpty)
  }
}
