import Dispatch

/// An executor that runs an actor on a serial `DispatchQueue`: the actor's isolated code runs
/// on ``queue``, and a block submitted to ``queue`` is isolated to the actor.
///
/// For a model confined to a queue (ZCRMailbox's `messageQueue`, a delegate queue an API
/// calls back on): make it an actor whose executor is this one, and the compiler checks what
/// the queue's code touches.
///
/// ```swift
/// actor Mailbox {
///   let executor = SerialQueueExecutor(label: "mailbox")
///   nonisolated var unownedExecutor: UnownedSerialExecutor {
///     executor.asUnownedSerialExecutor()
///   }
///   var unread = 0
///   func receive() { unread += 1 }  // runs on executor.queue
/// }
/// ```
///
/// A callback that an API delivers on ``queue`` may enter the actor synchronously with
/// `mailbox.assumeIsolated { $0.receive() }`: ``checkIsolated()`` tells the runtime that code
/// on the queue is isolated to the actor.
///
/// - Threading: ``queue`` is a serial queue of the executor's own, so no two jobs of the actor
///   ever run at once. A `target` queue only says where its blocks run: a concurrent target does
///   not make it concurrent. On Apple platforms `DispatchSerialQueue` is itself an executor
///   (macOS 14 and later); Dispatch on Linux has no such type, so this one works on both.
/// - Order: jobs run in the order they were enqueued, in turn with the blocks submitted to
///   ``queue`` directly.
/// - Lifetime: each enqueued job keeps the executor alive until it has run. An actor that holds
///   the executor, as above, keeps it as long as the actor lives.
/// - Cost: one Dispatch work item per job, which Dispatch allocates.
public final class SerialQueueExecutor: SerialExecutor, Sendable {
  /// The serial queue every job runs on. Blocks submitted to it run in turn with the actor's
  /// jobs, and are isolated to the actor (see ``checkIsolated()``).
  public let queue: DispatchQueue

  /// Creates an executor on a new serial queue named `label`, whose blocks run on `target`'s
  /// threads (a global queue when nil).
  ///
  /// - Parameters:
  ///   - label: The queue's name, shown in debuggers and crash reports.
  ///   - qos: The queue's quality of service.
  ///   - target: The queue whose threads run the new queue's blocks, one at a time.
  public init(label: String, qos: DispatchQoS = .unspecified, target: DispatchQueue? = nil) {
    queue = DispatchQueue(label: label, qos: qos, target: target)
  }

  /// Runs `job` on ``queue``, after the jobs and blocks submitted before it. Called by the
  /// runtime; code does not call it.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async {
      job.runSynchronously(on: self.asUnownedSerialExecutor())
    }
  }

  /// This executor, as the runtime refers to it: what an actor's `unownedExecutor` returns.
  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  /// Stops the process unless the current code runs on ``queue``: what the runtime asks when
  /// `assumeIsolated` or `preconditionIsolated` is called off the actor's own jobs, so that a
  /// block submitted to ``queue`` counts as isolated to the actor.
  public func checkIsolated() {
    dispatchPrecondition(condition: .onQueue(queue))
  }
}
