import Dispatch
import IndefiniteObservable
import Multicast
import Observation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Issue 50: current values and `@Streamed` properties take part in Observation, so that SwiftUI
// renders a view again when one it read changes. SwiftUI is not on Linux; what it relies on is
// `withObservationTracking`, which these tests use as a view's body is tracked: once, until the
// first change that it hears.

@Suite(.checksLiveResources) struct CurrentValueObservationTests {
  @Test func aTrackedReadHearsTheNextWriteOnce() {
    let volume = CurrentValue(5)
    let changes = Recorder<String>()
    let read = withObservationTracking {
      volume.value
    } onChange: {
      changes.record("changed")
    }
    #expect(read == 5)
    #expect(changes.values.isEmpty)
    volume.value = 6
    #expect(changes.values == ["changed"])
    volume.value = 7  // the tracking was used up by the first write, as Observation's is
    #expect(changes.values == ["changed"])
    #expect(volume.value == 7)
  }

  @Test func everyWayOfWritingIsHeard() {
    let count = CurrentValue(0)
    let refresh = CurrentValue(())
    let changes = Recorder<String>()
    withObservationTracking {
      _ = count.value
    } onChange: {
      changes.record("value =")
    }
    count.value = 1
    withObservationTracking {
      _ = count.value
    } onChange: {
      changes.record("update")
    }
    count.update { $0 += 1 }
    withObservationTracking {
      refresh.value
    } onChange: {
      changes.record("send()")
    }
    refresh.send()
    #expect(changes.values == ["value =", "update", "send()"])
    #expect(count.value == 2)
  }

  @Test func observersHearOfAWriteBeforeItsSubscribersAreCalled() {
    let level = CurrentValue(0)
    let events = Recorder<String>()
    let subscription = level.subscribe(replayingLast: false) { events.record("subscriber \($0)") }
    withObservationTracking {
      _ = level.value
    } onChange: {
      events.record("observer")
    }
    level.value = 1
    #expect(events.values == ["observer", "subscriber 1"])
    subscription.unsubscribe()
  }

  @Test func aWriteSkippedAsEqualIsNotHeard() {
    let mode = CurrentValue("light", skipsEqualWrites: true)
    let changes = Recorder<String>()
    withObservationTracking {
      _ = mode.value
    } onChange: {
      changes.record("changed")
    }
    mode.value = "light"
    mode.update { $0 = "light" }
    #expect(changes.values.isEmpty)
    #expect(mode.sendCount == 0)
    mode.value = "dark"
    #expect(changes.values == ["changed"])
  }

  @Test func anEqualWriteIsHeardWhenTheHolderDeliversEveryWrite() {
    let refreshes = CurrentValue(1)
    let changes = Recorder<String>()
    withObservationTracking {
      _ = refreshes.value
    } onChange: {
      changes.record("changed")
    }
    refreshes.value = 1
    #expect(changes.values == ["changed"])
  }

  @Test func onlyTheHoldersReadAreTracked() {
    let read = CurrentValue(0)
    let unread = CurrentValue(0)
    let changes = Recorder<String>()
    withObservationTracking {
      _ = read.value
    } onChange: {
      changes.record("changed")
    }
    unread.value = 1
    #expect(changes.values.isEmpty)
    read.value = 1
    #expect(changes.values == ["changed"])
  }

  @Test func subscribingIsNotReading() {
    let level = CurrentValue(0)
    let changes = Recorder<String>()
    var replayed: [Int] = []
    let subscription = withObservationTracking {
      level.subscribe { replayed.append($0) }
    } onChange: {
      changes.record("changed")
    }
    level.value = 1
    #expect(replayed == [0, 1])
    #expect(changes.values.isEmpty)
    subscription.unsubscribe()
  }

  @Test func aHolderIsAnObservableObjectAsBindableAndEnvironmentRequire() {
    #expect(isObservableObject(CurrentValue<Int>.self))
    #expect(isObservableObject(SendableCurrentValue<Int>.self))
    // What `@Bindable var volume: CurrentValue<Double>` makes `$volume.value` of.
    let volume = CurrentValue(0.5)
    let path: ReferenceWritableKeyPath<CurrentValue<Double>, Double> = \.value
    volume[keyPath: path] = 0.8
    #expect(volume.value == 0.8)
  }
}

@Suite(.checksLiveResources) struct SendableCurrentValueObservationTests {
  @Test func aReadTrackedOnOneThreadHearsAWriteFromAnotherBeforeItIsStored() {
    let progress = SendableCurrentValue(0)
    let writer = DispatchQueue(label: "writer")
    let key = DispatchSpecificKey<String>()
    writer.setSpecific(key: key, value: "writer")
    let heard = Recorder<String>()
    withObservationTracking {
      _ = progress.value
    } onChange: {
      heard.record(
        "\(progress.value) on \(DispatchQueue.getSpecific(key: key) ?? "another thread")")
    }
    writer.sync { progress.value = 10 }
    #expect(heard.values == ["0 on writer"])
    #expect(progress.value == 10)
  }

  @Test func everyWayOfWritingIsHeardFromAnyThread() async {
    let progress = SendableCurrentValue(0)
    let refresh = SendableCurrentValue(())
    let changes = Recorder<String>()
    withObservationTracking {
      _ = progress.value
    } onChange: {
      changes.record("value =")
    }
    await Task.detached { progress.value = 1 }.value
    withObservationTracking {
      _ = progress.value
    } onChange: {
      changes.record("send")
    }
    await Task.detached { progress.send(2) }.value
    withObservationTracking {
      _ = progress.value
    } onChange: {
      changes.record("update")
    }
    await Task.detached { progress.update { $0 += 1 } }.value
    withObservationTracking {
      refresh.value
    } onChange: {
      changes.record("send()")
    }
    await Task.detached { refresh.send() }.value
    #expect(changes.values == ["value =", "send", "update", "send()"])
    #expect(progress.value == 3)
  }

  @Test func aWriteSkippedAsEqualIsNotHeard() {
    let mode = SendableCurrentValue("light", skipsEqualWrites: true)
    let changes = Recorder<String>()
    withObservationTracking {
      _ = mode.value
    } onChange: {
      changes.record("changed")
    }
    DispatchQueue.global().sync {
      mode.value = "light"
      mode.send("light")
      mode.update { $0 = "light" }
    }
    #expect(changes.values.isEmpty)
    DispatchQueue.global().sync { mode.value = "dark" }
    #expect(changes.values == ["changed"])
  }

  /// Threads track reads while others write with every spelling, as views that render again at
  /// each change: each reader waits until its tracking is heard before it tracks again, so a
  /// write that told no one would leave it waiting. A tracking may be heard more than once here:
  /// Observation calls `onChange` before it ends the tracking, and the other writers' writes
  /// meanwhile call it again (thousands of times, in runs here where a writer was descheduled
  /// in between), as for any observable object written from several threads at once. (Run under
  /// ThreadSanitizer by CI.)
  @Test func trackingsOnManyThreadsAreEachHeardWhileOthersWrite() {
    let level = SendableCurrentValue(0)
    let trackingsPerReader = 200
    let readers = 4
    let writers = 3
    let readersDone = Atomic<Int>(0)
    let heard = LockedState<[Int: Int]>([:])  // not Mutex: ThreadSanitizer misses it on Linux
    runOnThreads(readers + writers) { thread in
      if thread < readers {
        for index in 0..<trackingsPerReader {
          let id = thread * trackingsPerReader + index
          let tracking = HeardCount()
          withObservationTracking {
            _ = level.value
          } onChange: {
            tracking.count.add(1, ordering: .releasing)
            heard.withLock { $0[id, default: 0] += 1 }
          }
          while tracking.count.load(ordering: .acquiring) == 0 { sched_yield() }
        }
        readersDone.add(1, ordering: .releasing)
      } else {
        var round = 0
        while readersDone.load(ordering: .acquiring) < readers {
          round += 1
          switch thread % 3 {
          case 0: level.update { $0 += 1 }
          case 1: level.send(round)
          default: level.value = round
          }
        }
      }
    }
    let counts = heard.withLock { $0 }
    #expect(counts.count == readers * trackingsPerReader)
    #expect(counts.values.allSatisfy { $0 >= 1 })
  }
}

extension SendableCurrentValueObservationTests {
  /// A holder's registrar is made at the first read of its value: threads that read a new
  /// holder at once, each tracking its read, must all find the one registrar that the write
  /// tells.
  @Test func trackingsOfFirstReadsOnManyThreadsAllHearTheNextWrite() {
    for round in 0..<50 {
      let level = SendableCurrentValue(round)
      let heard = LockedState(0)
      runOnThreads(8) { _ in
        withObservationTracking {
          _ = level.value
        } onChange: {
          heard.withLock { $0 += 1 }
        }
      }
      level.value = -1
      #expect(heard.withLock { $0 } == 8)
    }
  }
}

/// How many times one tracking was heard.
final class HeardCount: Sendable {
  let count = Atomic<Int>(0)
}

@MainActor final class ProfileModel: Observable {
  @Streamed var name = "Ada"
  @Streamed(skipsEqualWrites: true) var theme = "light"
}

@Observable final class Settings {
  var brightness = 50
  @ObservationIgnored @Streamed var volume = 5
}

@MainActor @Suite(.checksLiveResources) struct StreamedObservationTests {
  /// A view's body as SwiftUI tracks it: read what it shows, and hear of the next change.
  @MainActor final class View {
    let changes = Recorder<String>()
    var shown = ""

    func render(_ model: ProfileModel) {
      shown = withObservationTracking {
        model.name
      } onChange: { [changes] in
        changes.record("changed")
      }
    }
  }

  @Test func aViewThatReadsThePropertyIsToldOfEachWriteOnce() {
    let model = ProfileModel()
    let view = View()
    view.render(model)
    #expect(view.shown == "Ada")
    model.name = "Grace"
    #expect(view.changes.values == ["changed"])
    model.name = "Barbara"  // not rendered again yet: nothing to tell
    #expect(view.changes.values == ["changed"])
    view.render(model)
    #expect(view.shown == "Barbara")
    model.name = "Grace"
    #expect(view.changes.values == ["changed", "changed"])
  }

  @Test func aWriteSkippedAsEqualIsNotHeard() {
    let model = ProfileModel()
    let changes = Recorder<String>()
    withObservationTracking {
      _ = model.theme
    } onChange: {
      changes.record("changed")
    }
    model.theme = "light"
    #expect(changes.values.isEmpty)
    model.theme = "dark"
    #expect(changes.values == ["changed"])
  }

  @Test func eachPropertyIsTrackedAlone() {
    let model = ProfileModel()
    let changes = Recorder<String>()
    withObservationTracking {
      _ = model.name
    } onChange: {
      changes.record("changed")
    }
    model.theme = "dark"
    #expect(changes.values.isEmpty)
    model.name = "Grace"
    #expect(changes.values == ["changed"])
  }

  @Test func theStreamAndTheObserversBothHearAWrite() {
    let model = ProfileModel()
    let events = Recorder<String>()
    let subscription = model.$name.dropFirst().subscribe { events.record("stream \($0)") }
    withObservationTracking {
      _ = model.name
    } onChange: {
      events.record("observer")
    }
    model.name = "Grace"
    #expect(events.values == ["observer", "stream Grace"])
    subscription.unsubscribe()
  }

  @Test func aStreamedPropertyOfAnObservableClassIsObservedBesideItsOtherProperties() {
    let settings = Settings()
    let changes = Recorder<String>()
    withObservationTracking {
      _ = settings.volume
    } onChange: {
      changes.record("volume")
    }
    withObservationTracking {
      _ = settings.brightness
    } onChange: {
      changes.record("brightness")
    }
    settings.volume = 7
    settings.brightness = 70
    #expect(changes.values == ["volume", "brightness"])
    #expect(isObservableObject(ProfileModel.self))
  }
}

/// Whether `T` is accepted where `@Bindable` and SwiftUI's `@Environment(T.self)` require an
/// observable object; true, or the call does not compile.
func isObservableObject<T: Observable & AnyObject>(_ type: T.Type) -> Bool { true }
