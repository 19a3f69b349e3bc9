extension ValueObservable {
  /// Prints a line for each subscribe, each value and each unsubscribe, and passes every value
  /// on unchanged; Combine's `print(_:to:)`.
  ///
  /// ```swift
  /// let clicks = Emitter<Int>()
  /// let logging = clicks.print("clicks").subscribe { _ in }
  /// clicks.send(1)
  /// logging.unsubscribe()
  /// // prints:
  /// // clicks: receive subscription
  /// // clicks: receive value: (1)
  /// // clicks: receive cancel
  /// ```
  ///
  /// The lines are Combine's, less those about demand and completion, which a stream without end
  /// does not have: `receive subscription` before this stream connects, `receive value: (v)` before
  /// each value is passed on, `receive cancel` before this stream is disconnected (as
  /// ``handleEvents(receiveSubscription:receiveOutput:receiveCancel:)`` runs its closures).
  /// A non-empty `prefix` starts each line, followed by `": "`.
  ///
  /// - Parameters:
  ///   - prefix: What starts each line; nothing by default.
  ///   - stream: Where the lines go: standard output when nil. As in Combine, each line is
  ///     written to a copy of `stream` made when the stream was made, so a class that writes
  ///     somewhere (a file, a log) sees every line, and a value type sees none of them after
  ///     the call.
  /// - Threading: like every operator (see ``ValueObservable``): the lines are written where
  ///   their events happen, synchronously.
  public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil)
    -> ValueObservable<T>
  {
    let start = prefix.isEmpty ? "" : "\(prefix): "
    let log: (String) -> Void
    if let stream {
      log = { line in
        var copy = stream
        copy.write(start + line + "\n")
      }
    } else {
      log = { line in Swift.print(start + line) }
    }
    return handleEvents(
      receiveSubscription: { log("receive subscription") },
      receiveOutput: { log("receive value: (\($0))") },
      receiveCancel: { log("receive cancel") })
  }
}
