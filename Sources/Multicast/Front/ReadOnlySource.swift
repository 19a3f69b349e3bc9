import IndefiniteObservable

/// A multicast source seen by those who may subscribe to it but not send into it, made by
/// ``MulticastSubject/readOnly``: Combine's `eraseToAnyPublisher()`, RxSwift's `asObservable()`.
///
/// ```swift
/// final class Uploader: Sendable {
///   private let progressEmitter = SendableEmitter<Double>()
///   var progress: ReadOnlySource<SendableEmitter<Double>> { progressEmitter.readOnly }
/// }
/// ```
///
/// It has every subscribing spelling of its source's kind, with the same defaults: the
/// subscribe family, ``MulticastSource/subscriberCount`` and ``MulticastSource/sendCount`` for
/// every source; for a view of an ``Emitter`` or a ``CurrentValue`` those of
/// ``SingleIsolationSource``; for a view of a ``SendableEmitter`` or a ``SendableCurrentValue``
/// those of ``SendableSource`` (the operators, `stream(replayingLast:isolation:)`,
/// the subscribe family bound to the caller's actor), and it is `Sendable`. It has none of
/// ``MulticastSubject``'s: no `send`, no value setter, no `unsubscribeAll()`, no limit to
/// change. A type that names
/// none of the source's type is `some SendableSource<Double>` (or `any`), which the view is.
///
/// - Threading: as its source's: a view of a single-isolation source stays in that isolation
///   (it is not `Sendable`); a view of a sendable source may be used from any thread.
/// - Lifetime: the view holds its source strongly; subscriptions made through it are the
///   source's, end as the source's do, and count against its ``MulticastSubject/maxSubscribers``.
/// - Cost: a subscription made through the view is the one the source would make; a send does
///   not pass through the view.
public struct ReadOnlySource<Source: MulticastSubject>: MulticastSource {
  /// The type of the values: the source's.
  public typealias Value = Source.Value

  private let source: Source

  init(_ source: Source) {
    self.source = source
  }

  /// The source's: false for emitters, true for current values.
  public static var replaysLastByDefault: Bool { Source.replaysLastByDefault }

  /// The source's subscribers and last value: the module's own, not for use outside it.
  public var _storage: MulticastStorage<Source.Value> { source._storage }

  /// The source: the module's own, not for use outside it.
  public var _owner: AnyObject { source }
}

extension ReadOnlySource: SingleIsolationSource where Source: SingleIsolationSource {}

extension ReadOnlySource: Sendable where Source: SendableSource {}

extension ReadOnlySource: SendableSource where Source: SendableSource {}
