// Failure carried as a value. A stream here has no error channel and never ends, so a failure
// that a publisher or an observable would end with travels as a `Result` value instead, and the
// stream goes on after it. These operators, on a stream of `Result`, take Combine's names
// (`replaceError(with:)`, `catch(_:)`, `retry(_:)`), each with what "goes on" means for it.

extension ValueObservable {
  /// Passes on each success's value, and `output` in place of each failure: a stream of
  /// results made into a stream of values; Combine's `replaceError(with:)`, RxSwift's
  /// `catchAndReturn(_:)`.
  ///
  /// ```swift
  /// let temperatures = readings.replaceError(with: .nan)  // readings: Result<Double, SensorError>
  /// ```
  ///
  /// Combine's finishes after the replacement, because its upstream has failed and ended.
  /// Here a failure is one value among others: each one is replaced, and the values after it
  /// pass on as before.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): it runs synchronously where
  ///   the value is delivered.
  ///
  /// - Parameter output: The value passed on in place of each failure.
  @inlinable
  public func replaceError<Success, Failure: Error>(
    with output: Success
  ) -> ValueObservable<Success> where T == Result<Success, Failure> {
    map { result in
      switch result {
      case .success(let value): value
      case .failure: output
      }
    }
  }

  /// Passes on the values of successes and drops failures.
  ///
  /// ```swift
  /// let parsed = lines.map { line in Result { try parse(line) } }
  /// let records = parsed.successes()
  /// let problems = parsed.failures()
  /// ```
  ///
  /// Each subscription connects this stream: subscribing to both `successes()` and
  /// `failures()` connects it twice; `share()` (module `Multicast`) shares one connection.
  @inlinable
  public func successes<Success, Failure: Error>() -> ValueObservable<Success>
  where T == Result<Success, Failure> {
    compactMap { result in
      guard case .success(let value) = result else { return nil }
      return value
    }
  }

  /// Passes on the errors of failures and drops successes.
  ///
  /// ```swift
  /// let problems = parsed.failures().map { "\($0)" }
  /// ```
  ///
  /// Each subscription connects this stream, as ``successes()`` says.
  @inlinable
  public func failures<Success, Failure: Error>() -> ValueObservable<Failure>
  where T == Result<Success, Failure> {
    compactMap { result in
      guard case .failure(let failure) = result else { return nil }
      return failure
    }
  }

  /// Passes on each success's value, and, at each failure, the values of the stream that
  /// `handler` makes from it, until this stream delivers again; Combine's `catch(_:)`,
  /// RxSwift's `catch(_:)`.
  ///
  /// ```swift
  /// let shown = prices.catch { _ in cachedPrice }  // prices: Result<Price, FetchError>
  /// ```
  ///
  /// In Combine and RxSwift a failure ends the upstream, so the handler's publisher replaces
  /// it for good. Here this stream goes on after a failure, so the handler's stream stands in
  /// for it only until its next value:
  ///
  /// - A success is passed on; if a handler's stream is connected, it is disconnected first.
  /// - A failure disconnects the handler's stream that is connected, if any, then calls
  ///   `handler` and connects the stream it returns, whose values are passed on. A `Just` is a
  ///   fallback value; an `Emitter` or a `CurrentValue` a fallback that goes on changing.
  /// - No value of a handler's stream is passed on once this stream has delivered again, even
  ///   one it sends while connecting.
  /// - Unsubscribing disconnects the handler's stream first, then this stream, as
  ///   ``switchToLatest()`` does.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): this stream and the handler's
  ///   streams must not deliver on two threads at once. Unsubscribing may run on another
  ///   thread: a handler's stream that connects while it does is disconnected at once.
  /// - Cost: no allocation per success; a failure allocates what `handler`'s stream allocates
  ///   to subscribe.
  ///
  /// - Parameter handler: Makes, from a failure, the stream whose values stand in for it; called
  ///   once per failure, where the failure is delivered.
  @inlinable
  public func `catch`<Success, Failure: Error>(
    _ handler: @escaping (Failure) -> ValueObservable<Success>
  ) -> ValueObservable<Success> where T == Result<Success, Failure> {
    ValueObservable<Success>.connectingNext { next in
      let fallback = SerialDisconnect()
      // Counts this stream's values; a handler's stream passes values on only while the
      // failure that made it is the latest value.
      var latest = 0
      // Whether a handler's stream may be connected, so that a success takes no lock when none is.
      var hasFallback = false
      let disconnectUpstream = self.connectNext { result in
        latest &+= 1
        let generation = latest
        if hasFallback {
          hasFallback = false
          fallback.disconnectCurrent()
        }
        switch result {
        case .success(let value):
          next(value)
        case .failure(let failure):
          let disconnect = handler(failure).connectNext { value in
            if generation == latest { next(value) }
          }
          if generation == latest {
            hasFallback = true
            fallback.replace(with: disconnect)
          } else {
            disconnect()  // This stream delivered again while the handler's stream connected.
          }
        }
      }
      return {
        fallback.end()
        disconnectUpstream()
      }
    }
  }

  /// Disconnects and connects this stream again at a failure, at most `retries` times in a row;
  /// Combine's `retry(_:)`.
  ///
  /// ```swift
  /// let page = fetch(url).stream().retry(2)  // a DeferredFuture of a Result
  /// ```
  ///
  /// A connect that does work, as a `DeferredFuture` does, does it again: this is how a failed
  /// request is made again. The failure that causes a retry is dropped; a failure that comes
  /// once `retries` retries in a row have failed is passed on, and the stream stays connected,
  /// as it is: a later failure of that connection is passed on too, until a success.
  ///
  /// - Counting: a success passes on and gives back all `retries` retries, so "in a row" means
  ///   with no success between them. Combine counts the retries of a subscription without end,
  ///   because its publisher's success completes it; a stream that goes on would otherwise run
  ///   out of retries over its life. RxSwift's `retry(n)` counts attempts, the first included:
  ///   it is `retry(n - 1)` here.
  /// - Connecting again: the connection that failed is disconnected, then this stream is
  ///   connected again, before the delivery of the failure returns. A connection that fails
  ///   while it connects is connected again once its connect has returned, in a loop, not in a
  ///   recursion. No value of a connection is passed on once it has failed.
  /// - `retries` of zero or less passes everything on: the stream itself.
  /// - Unsubscribing disconnects the current connection; one being made meanwhile is
  ///   disconnected as soon as its connect returns, and not made again.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): this stream must not deliver
  ///   on two threads at once; a connection made again is made on the thread of the failure.
  /// - Cost: no allocation per value; a retry allocates what this stream's subscribe does.
  ///
  /// - Parameter retries: How many times in a row a failed connection is made again.
  @inlinable
  public func retry<Success, Failure: Error>(_ retries: Int) -> ValueObservable<T>
  where T == Result<Success, Failure> {
    guard retries > 0 else { return self }
    return ValueObservable<T>.connectingNext { next in
      let connection = SerialDisconnect()
      var retriesLeft = retries
      // Counts connections; values pass on only from the latest one, and only until it fails.
      var generation = 0
      var isConnecting = false
      var mustReconnect = false
      func connect() {
        repeat {
          mustReconnect = false
          generation &+= 1
          let current = generation
          isConnecting = true
          let disconnect = self.connectNext { result in
            guard current == generation else { return }
            switch result {
            case .success:
              retriesLeft = retries
            case .failure where retriesLeft > 0:
              retriesLeft -= 1
              generation &+= 1  // Nothing more from this connection.
              if isConnecting {
                mustReconnect = true  // Once its connect has returned.
              } else {
                connection.disconnectCurrent()
                connect()
              }
              return
            case .failure:
              break
            }
            next(result)
          }
          isConnecting = false
          guard connection.replace(with: disconnect) else { return }  // Unsubscribed.
          if mustReconnect { connection.disconnectCurrent() }
        } while mustReconnect
      }
      connect()
      return { connection.end() }
    }
  }
}
