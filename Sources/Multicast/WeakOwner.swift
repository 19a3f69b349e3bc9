/// A weak reference to a subscription's owner, that a `Sendable` closure may hold.
///
/// `@unchecked Sendable`: the reference is written once, in `init`, and only loaded where the
/// owner's subscriber runs (its actor, or its queue for a `Sendable` owner); the runtime makes
/// each load of a weak reference safe against the owner's release on another thread.
final class WeakOwner<Owner: AnyObject>: @unchecked Sendable {
  weak var object: Owner?
  init(_ object: Owner) { self.object = object }
}
