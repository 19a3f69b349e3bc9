import Synchronization

/// Debug-only counts of the resources this package holds on behalf of its users: subscriptions,
/// the subscribers that sources keep, Dispatch sources, file descriptors and signal handlers.
///
/// The tests read them before and after a test and expect them back where they were, the way
/// RxSwift counts its resources: a leak (a retain cycle through a subscription, a descriptor
/// never closed, a handler never restored) shows up as a failing test that names the kind of
/// resource. Each `opened` is matched by one `closed` when the resource goes away.
///
/// In release builds the counters do not exist and ``opened(_:)`` and ``closed(_:)`` are empty
/// inlinable functions, which compile to nothing.
package enum LiveResources {
  /// A kind of resource that is counted.
  package enum Kind: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// ``Subscription`` objects.
    case subscriptions
    /// Subscribers kept by an ``Emitter`` or a ``CurrentValue`` (their list entries).
    case multicastSubscribers
    /// Per-subscription state of the producers: timer handlers, descriptor readers and
    /// watchers, observers of a file watch, signal subscribers.
    case producerObservers
    /// Dispatch sources made by the producers whose cancellation has not completed.
    case dispatchSources
    /// File descriptors that the producers own and must close.
    case descriptors
    /// Signals whose disposition is the producers' handler.
    case signalHandlers

    package var description: String {
      switch self {
      case .subscriptions: "subscriptions"
      case .multicastSubscribers: "multicast subscribers"
      case .producerObservers: "producer observers"
      case .dispatchSources: "Dispatch sources"
      case .descriptors: "descriptors"
      case .signalHandlers: "signal handlers"
      }
    }
  }

  /// Counts one more live resource of `kind`. Nothing in release builds.
  @inlinable
  package static func opened(_ kind: Kind) {
    #if DEBUG
      add(1, to: kind)
    #endif
  }

  /// Counts one live resource of `kind` less. Nothing in release builds.
  @inlinable
  package static func closed(_ kind: Kind) {
    #if DEBUG
      add(-1, to: kind)
    #endif
  }

  /// Whether resources are counted: true in debug builds.
  package static var areCounted: Bool {
    #if DEBUG
      true
    #else
      false
    #endif
  }

  /// The live resources of every kind now (all zero in release builds).
  package static var counts: [Kind: Int] {
    var counts: [Kind: Int] = [:]
    for kind in Kind.allCases {
      #if DEBUG
        counts[kind] = counters[kind.rawValue].live.load(ordering: .acquiring)
      #else
        counts[kind] = 0
      #endif
    }
    return counts
  }

  #if DEBUG
    // One counter per kind, at the kind's raw value (its place in `allCases`), updated
    // atomically from any thread.
    private static let counters = Kind.allCases.map { _ in Counter() }

    /// An atomic count in an object of its own, which an array can hold: an `Atomic` cannot be
    /// copied into one.
    private final class Counter: Sendable {
      let live = Atomic(0)
    }

    @usableFromInline
    static func add(_ delta: Int, to kind: Kind) {
      counters[kind.rawValue].live.add(delta, ordering: .acquiringAndReleasing)
    }
  #endif
}
