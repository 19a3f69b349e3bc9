extension ValueObservable {
  /// Passes on each value of this stream paired with the latest value of `other`, once `other`
  /// has delivered one; RxSwift's `withLatestFrom(_:resultSelector:)` with a selector that makes
  /// the pair (Combine has no such operator).
  ///
  /// ```swift
  /// let taps = Emitter<Void>()
  /// let query = CurrentValue("swift")
  /// var searched: [String] = []
  /// let searching = taps.withLatestFrom(query).subscribe { searched.append($1) }
  /// taps.send()
  /// query.value = "swift-nio"
  /// taps.send()
  /// // searched == ["swift", "swift-nio"]
  /// ```
  ///
  /// RxSwift's `withLatestFrom(_:)` without a selector passes on the value of `other` alone;
  /// here that is `withLatestFrom(other) { $1 }`. This one is ``withLatestFrom(_:_:)`` with a
  /// selector that makes the pair: only this stream's values cause a delivery, and a value of
  /// this stream that arrives before `other` has delivered anything is dropped. The latest value
  /// of `other` is kept for as long as the subscription lasts, and is passed on again with each
  /// value of this stream.
  ///
  /// Subscribing connects `other` first, then this stream, as RxSwift does, so that a value
  /// `other` sends while connecting (a current value) is there for this stream's first value;
  /// unsubscribing disconnects them in that order, each once, as every operator here that holds
  /// streams side by side does (RxSwift disposes of this stream first). Each subscription keeps its own
  /// latest value.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the two streams must not
  ///   deliver on two threads at once.
  @inlinable
  public func withLatestFrom<U>(_ other: ValueObservable<U>) -> ValueObservable<(T, U)> {
    withLatestFrom(other) { ($0, $1) }
  }

  /// Passes on `resultSelector(value, latest)` for each value of this stream, where `latest` is
  /// the latest value of `other`, once `other` has delivered one; RxSwift's
  /// `withLatestFrom(_:resultSelector:)` (Combine has no such operator).
  ///
  /// ```swift
  /// let taps = Emitter<Int>()
  /// let unit = CurrentValue("px")
  /// var labels: [String] = []
  /// let labelling = taps.withLatestFrom(unit) { "\($0) \($1)" }.subscribe { labels.append($0) }
  /// taps.send(12)
  /// // labels == ["12 px"]
  /// ```
  ///
  /// Only this stream's values cause a delivery: a value of `other` is kept, replacing the one
  /// before it, and passes nothing on by itself. A value of this stream that arrives before
  /// `other` has delivered anything is dropped, and `resultSelector` is not called for it.
  /// `resultSelector` runs synchronously on the delivering thread, once per value passed on and
  /// subscription.
  ///
  /// Subscribing connects `other` first, then this stream, as RxSwift does, so that a value
  /// `other` sends while connecting (a current value) is there for this stream's first value;
  /// unsubscribing disconnects them in that order, each once, as every operator here that holds
  /// streams side by side does (RxSwift disposes of this stream first). Each subscription keeps its own
  /// latest value of `other`, until it ends.
  ///
  /// - Threading: like every operator (see ``ValueObservable``): the two streams must not
  ///   deliver on two threads at once.
  @inlinable
  public func withLatestFrom<U, Result>(
    _ other: ValueObservable<U>,
    _ resultSelector: @escaping (T, U) -> Result
  ) -> ValueObservable<Result> {
    ValueObservable<Result>.connectingNext { next in
      var latest: U?
      let disconnectOther = other.connectNext { value in
        latest = value
      }
      let disconnectSelf = self.connectNext { value in
        if let latest { next(resultSelector(value, latest)) }
      }
      return {
        disconnectOther()
        disconnectSelf()
      }
    }
  }
}
