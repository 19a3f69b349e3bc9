import IndefiniteObservable

extension ValueObservable {
  /// Passes on every value `interval` after it arrived, in the order they arrived.
  ///
  /// ```swift
  /// let echoes = try keystrokes.delay(for: .milliseconds(250))
  /// ```
  ///
  /// As Combine's `delay(for:scheduler:)`, with a `Clock` in place of a scheduler.
  ///
  /// - Order: values are delivered in the order they arrived, each no earlier than `interval`
  ///   after its arrival on `clock`. A zero `interval` still delivers after the upstream's send
  ///   returns, on the next turn of the actor.
  /// - Without completion: a stream never ends, so nothing waits for an end. The values still
  ///   waiting when the subscription ends are dropped, and their wait cancelled.
  /// - Threading: the stream belongs to the caller's actor (`isolation`, which the compiler
  ///   passes): subscribe and send into it there. Values are delivered on that actor, by a task
  ///   that runs there, so `T` need not be `Sendable`.
  /// - Unsubscribe: cancels the wait. Once `unsubscribe()` returns on the stream's actor, no
  ///   value is delivered; from another thread, a delivery already under way on the actor may
  ///   finish, and no other begins.
  /// - Cost: no allocation per value once the subscription's queue has grown to the number of
  ///   values in flight (it doubles when full and keeps its size). While values wait, one task
  ///   on the actor delivers them: it starts when a value arrives with none waiting, and sleeps
  ///   on `clock` once for each value not yet due when the one before it was delivered (a
  ///   `ContinuousClock` sleep allocates).
  ///
  /// - Parameters:
  ///   - interval: How long each value waits: from zero to `Timers.maximumInterval`.
  ///   - clock: The clock that measures `interval`; a test passes one it controls.
  ///   - isolation: The actor the stream belongs to: the caller's, which the compiler passes.
  /// - Throws: `TimerError.negativeDelay(_:)` for a negative `interval`,
  ///   `TimerError.tooLong(_:)` for one above `Timers.maximumInterval`, as `Timers.after`
  ///   does, when the stream is made.
  public func delay(
    for interval: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated any Actor = #isolation
  ) throws(TimerError) -> ValueObservable<T> {
    let interval = try checkedDelay(interval)
    return ValueObservable { observer in
      let work = TimedWork()
      let state = DelayState<T, _>(instantsLike: clock.now)
      let upstream = self.subscribe { value in
        state.append(value, due: clock.now.advanced(by: interval))
        guard !state.waiting else { return }
        state.waiting = true
        work.waiting(
          on: Task {
            _ = isolation  // runs the task on the stream's actor
            while let due = state.firstDeadline {
              if clock.now < due {
                do { try await clock.sleep(until: due, tolerance: nil) } catch { return }
              }
              guard !work.ended else { return }
              if let value = state.popFirst() { observer.next(value) }
            }
            state.waiting = false
          })
      }
      return {
        work.end()
        upstream.unsubscribe()
      }
    }
  }
}

/// A delay subscription's values in flight, oldest first, with their deadlines: a ring buffer
/// that allocates only when it grows. Touched only on the stream's actor.
private final class DelayState<T, Instant> {
  private var slots: ContiguousArray<(value: T, due: Instant)?> = []
  private var head = 0
  private var count = 0
  var waiting = false

  /// An empty queue, for deadlines of the type of `instantsLike`.
  init(instantsLike _: Instant) {}

  /// The deadline of the oldest value, if one waits.
  var firstDeadline: Instant? {
    count > 0 ? slots[head]?.due : nil
  }

  func append(_ value: T, due: Instant) {
    if count == slots.count { grow() }
    var index = head + count
    if index >= slots.count { index -= slots.count }
    slots[index] = (value, due)
    count += 1
  }

  func popFirst() -> T? {
    guard count > 0 else { return nil }
    let entry = slots[head].take()
    head += 1
    if head == slots.count { head = 0 }
    count -= 1
    return entry?.value
  }

  /// Doubles the storage (at least 4 slots), keeping the values in order from index 0.
  private func grow() {
    let capacity = max(4, slots.count * 2)
    var grown = ContiguousArray<(value: T, due: Instant)?>()
    grown.reserveCapacity(capacity)
    for offset in 0..<count { grown.append(slots[(head + offset) % slots.count].take()) }
    while grown.count < capacity { grown.append(nil) }
    slots = grown
    head = 0
  }
}
