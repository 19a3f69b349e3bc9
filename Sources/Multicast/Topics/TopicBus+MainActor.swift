import IndefiniteObservable

extension TopicBus {
  /// Calls a main-actor `handler` with each event of `topic` (from `sender` only, when given).
  ///
  /// ```swift
  /// bus.subscribeOnMainActor(to: .loggedIn) { event in
  ///   titleLabel.text = "Hello, \(event.payload.user)"
  /// }
  /// ```
  ///
  /// - When: an event published from code isolated to the main actor (a `@MainActor` function,
  ///   a view controller, top-level code) is delivered at once, before `publish` returns, like
  ///   any subscriber's. An event published from anywhere else is delivered later, in a
  ///   main-actor task. Either way each subscriber receives events in publish order: an event
  ///   published on the main actor while earlier ones still wait is queued behind them.
  /// - Unsubscribe: from any thread; queued events are dropped and, once it returns, no handler
  ///   call begins.
  /// - Parameters and lifetime: as for ``subscribe(to:from:once:_:)``. With `once`, the one
  ///   claimed event is delivered even if it has to wait for the main actor.
  @discardableResult
  public func subscribeOnMainActor<Payload>(
    to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil, once: Bool = false,
    _ handler: @escaping @MainActor (TopicEvent<Payload>) -> Void
  ) -> Subscription {
    addOnMainActor(topic, sender: sender, owner: nil, once: once, handler)
  }

  /// Calls a main-actor `handler` with `owner` and each event of `topic`, for as long as `owner`
  /// lives and until `owner`'s subscriptions are ended.
  ///
  /// The owner is held weakly and looked up again on the main actor when the event is
  /// delivered: if it was deallocated in between, the event is dropped. Delivery timing is as
  /// for ``subscribeOnMainActor(to:from:once:_:)``; ownership as for
  /// ``subscribe(_:to:from:once:_:)``.
  @discardableResult
  public func subscribeOnMainActor<Owner: AnyObject & Sendable, Payload>(
    _ owner: Owner, to topic: Topic<Payload>, from sender: (any AnyObject & Sendable)? = nil,
    once: Bool = false, _ handler: @escaping @MainActor (Owner, TopicEvent<Payload>) -> Void
  ) -> Subscription {
    addOnMainActor(topic, sender: sender, owner: owner, once: once) { [weak owner] event in
      guard let owner else { return }
      handler(owner, event)
    }
  }

  private func addOnMainActor<Payload>(
    _ topic: Topic<Payload>, sender: (any AnyObject & Sendable)?,
    owner: (any AnyObject & Sendable)?, once: Bool,
    _ handler: @escaping @MainActor (TopicEvent<Payload>) -> Void
  ) -> Subscription {
    // A once-subscriber's delivery ends itself after its event, which releases the handler.
    let delivery = MainActorDelivery(once: once, handler)
    let subscription = add(topic, sender: sender, once: once) { emitter, state in
      guard let owner else {
        return emitter.subscribe { message in
          guard case .event(let event, let onMainActor) = message,
            state.admits(sender: event.sender)
          else { return }
          delivery.send(event, onMainActor: onMainActor)
        }
      }
      // Not bound to the owner in the emitter: `unsubscribe(_:from:)` and `unsubscribeAll(_:)`
      // must also drop the events queued for the main actor, so the subscription ends itself
      // when it hears that its owner's subscriptions end, in the same send that says so.
      return emitter.subscribe { [weak owner] message in
        guard let owner else {  // the owner is gone: nothing can be delivered again
          delivery.cancel()
          state.end()
          return
        }
        switch message {
        case .event(let event, let onMainActor):
          guard state.admits(sender: event.sender) else { return }
          delivery.send(event, onMainActor: onMainActor)
        case .ownerEnded(let ended):
          guard ended == ObjectIdentifier(owner) else { return }
          delivery.cancel()
          state.end()
        }
      }
    }
    // The delivery, and with it the handler, is kept by the emitter's subscription (and by a
    // main-actor task while events wait for it), not by the returned subscription: a
    // subscription that ends by itself (its sender or owner gone, its owner unsubscribed, its
    // once-event delivered) releases the handler even if its `Subscription` is kept.
    return Subscription { [weak delivery] in
      delivery?.cancel()
      subscription.unsubscribe()
    }
  }
}
