import Dispatch
import IndefiniteObservable

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The process-wide state behind ``Signals``: the self-pipe and its reader, the signals whose
/// handler is installed (with the disposition each replaced), and the subscribers.
///
/// The handler only writes a signal's number to the pipe; everything else happens here, outside
/// signal context. The pipe is read on a private serial queue that hands each signal to the
/// subscribers that want it, each on its own delivery queue.
///
/// `@unchecked Sendable`: `readEnd`, `reader`, `installations` and `subscribers` are read and
/// written only under `lock`; `readerQueue` is immutable. System calls (`sigaction`) run under the
/// lock so that installs and restores are ordered; no observer is called or released under it.
final class SignalRegistry: @unchecked Sendable {
  /// The registry of this process.
  static let shared = SignalRegistry()

  /// A signal whose handler is ours: how many subscriptions want it, and what it replaced.
  private struct Installation {
    var subscriptions: Int
    let previous: sigaction
  }

  private let lock = Lock()
  private let readerQueue = DispatchQueue(label: "IndefiniteObservable.Signals")
  private var readEnd: Int32 = -1
  private var reader: DispatchSourceRead?
  private var installations: [Int32: Installation] = [:]
  private var subscribers: [SignalSubscriber] = []

  /// Makes the self-pipe and starts reading it, the first time it is called in the process.
  ///
  /// The pipe and its read source are kept for the life of the process (two descriptors): the
  /// handler can still be running on some thread right after a restore, and must never find its
  /// descriptor closed or reused.
  func prepare() throws(SignalError) {
    lock.lock()
    defer { lock.unlock() }
    guard reader == nil else { return }
    let ends: (read: Int32, write: Int32)
    switch System.makePipe() {
    case .success(let made): ends = made
    case .failure(let errno): throw .pipeFailed(errno)
    }
    SignalHandler.setPipe(writeEnd: ends.write)
    let source = DispatchSource.makeReadSource(fileDescriptor: ends.read, queue: readerQueue)
    source.setEventHandler { [self, fd = ends.read] in drain(fd) }
    source.activate()
    readEnd = ends.read
    reader = source
  }

  /// Registers a subscriber, installing the handler of each of its signals that had none.
  ///
  /// Deliveries already in the pipe go to the earlier subscribers first, so a new subscription
  /// does not receive a signal that was handled before it subscribed. Once this returns, a
  /// signal sent to the process reaches the subscriber.
  func add(_ subscriber: SignalSubscriber) {
    let fd = lock.withLock { readEnd }
    readerQueue.sync { drain(fd) }
    lock.withLock {
      subscribers.append(subscriber)
      for number in subscriber.signals {
        if installations[number] == nil {
          let previous = SignalHandler.install(number)
          LiveResources.opened(.signalHandlers)
          installations[number] = Installation(subscriptions: 0, previous: previous)
        }
        installations[number]?.subscriptions += 1
      }
    }
  }

  /// Unregisters a subscriber; the last subscriber of a signal restores the disposition that
  /// the signal had before the first one. Idempotent.
  func remove(_ subscriber: SignalSubscriber) {
    subscriber.stop()
    lock.withLock {
      guard let index = subscribers.firstIndex(where: { $0 === subscriber }) else { return }
      subscribers.remove(at: index)
      for number in subscriber.signals {
        guard var installation = installations[number] else { continue }
        installation.subscriptions -= 1
        if installation.subscriptions > 0 {
          installations[number] = installation
        } else {
          SignalHandler.restore(number, to: installation.previous)
          LiveResources.closed(.signalHandlers)
          installations[number] = nil
        }
      }
    }
  }

  /// Reads every signal waiting in the pipe and hands it to its subscribers; on `readerQueue`.
  private func drain(_ fd: Int32) {
    withUnsafeTemporaryAllocation(byteCount: 512, alignment: 1) { buffer in
      while case .success(let count) = System.read(fd, into: buffer), count > 0 {
        let numbers = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        let receivers = lock.withLock { subscribers }
        for subscriber in receivers { subscriber.deliver(numbers) }
        if count < buffer.count { return }
      }
    }
  }
}
