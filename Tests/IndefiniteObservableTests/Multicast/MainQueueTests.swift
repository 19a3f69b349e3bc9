import Dispatch
import Multicast
import Testing

/// `MainQueue.isCurrent`: the one main-queue check that the sources and the producers use.
@Suite struct MainQueueTests {
  @MainActor @Test func mainActorCodeRunsTheMainQueue() {
    #expect(MainQueue.isCurrent)
  }

  @Test func aBlockOfTheMainQueueRunsIt() async {
    let seen = await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume(returning: MainQueue.isCurrent) }
    }
    #expect(seen)
  }

  @Test func anotherQueueDoesNotRunIt() async {
    let seen = await withCheckedContinuation { continuation in
      DispatchQueue(label: "MainQueueTests").async {
        continuation.resume(returning: MainQueue.isCurrent)
      }
    }
    #expect(!seen)
    #expect(await Task.detached { MainQueue.isCurrent }.value == false)
  }
}
