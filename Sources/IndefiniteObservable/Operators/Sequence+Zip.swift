extension Sequence {
  /// Passes on arrays of the values of these streams in order, in the sequence's order: the
  /// first value of each, then the second of each, and so on; RxSwift's `Observable.zip(_:)` of
  /// a collection (Combine's `zip` takes at most four publishers).
  ///
  /// ```swift
  /// func replies(_ texts: String...) -> ValueObservable<String> {
  ///   ValueObservable { observer in
  ///     for text in texts { observer.next(text) }
  ///     return noopDisconnect
  ///   }
  /// }
  /// let rounds = [replies("a1", "a2"), replies("b1"), replies("c1", "c2")].zip()
  /// // delivers ["a1", "b1", "c1"]; "a2" and "c2" wait for a second value of the middle stream
  /// ```
  ///
  /// An array is passed on when the value that completes it arrives, on that value's thread. For
  /// two to four streams of any types, ``ValueObservable/zip(_:)`` and its siblings give tuples;
  /// everything they say holds here too. **Unmatched values wait**: with no completion, nothing
  /// ever says that a partner will not come, so a value waits in its stream's buffer until every
  /// other stream has a value for its position, and is dropped, unmatched, when the subscription
  /// ends. The buffers have no bound: zip only streams that deliver in step, and use
  /// ``combineLatest()`` for streams that deliver at their own rates.
  ///
  /// The elements may be any kind of stream of `T` (`[emitter, currentValue]` included). The
  /// sequence is copied into an array when the stream is made. Subscribing subscribes to the
  /// streams in order; unsubscribing unsubscribes from all of them, in the same order, each
  /// once. Each subscription has its own buffers. An empty sequence gives a stream that never
  /// delivers and connects nothing; a sequence of one stream passes on one-element arrays.
  ///
  /// Each array passed on is a new one (one allocation per array); a buffer that stays short
  /// allocates nothing per value.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the streams must not deliver on
  ///   two threads at once.
  @inlinable
  public func zip<T>() -> ValueObservable<[T]> where Element: ValueObservable<T> {
    let streams = Array(self)
    return ValueObservable<[T]>.connectingNext { next in
      guard !streams.isEmpty else { return noopDisconnect }
      // One buffer per stream. No moment finds every buffer with a value: the value that would
      // complete a set is passed on with the others instead of waiting.
      var waiting = [PendingValues<T>](repeating: PendingValues(), count: streams.count)
      var emptyBuffers = streams.count
      let disconnects = streams.indices.map { index in
        streams[index].connectNext { value in
          guard waiting[index].isEmpty && emptyBuffers == 1 else {
            if waiting[index].isEmpty { emptyBuffers -= 1 }
            waiting[index].append(value)
            return
          }
          var values: [T] = []
          values.reserveCapacity(waiting.count)
          for other in waiting.indices {
            if other == index {
              values.append(value)
            } else if let first = waiting[other].popFirst() {
              values.append(first)
              if waiting[other].isEmpty { emptyBuffers += 1 }
            }
          }
          next(values)
        }
      }
      return {
        for disconnect in disconnects { disconnect() }
      }
    }
  }
}
