import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The actor that the code running on this thread is known to be isolated to, for the
/// actor-bound subscribers that a send reaches synchronously.
///
/// ``SendableEmitter`` sets it around each send and subscribe, from the `isolation` argument the
/// compiler passed, and ``ObserverGate`` around each delivery it makes on its actor; the
/// actor-bound entries of a sendable emitter read it: a subscriber bound to that actor is then
/// called at once, and any other one hops. A send whose static isolation is nil (a `nonisolated`
/// wrapper) keeps the actor recorded by the code around it: a synchronous call runs where its
/// caller runs. Only the identity of the actor is kept, for the duration of the synchronous call
/// that set it (no suspension can happen inside it), so nothing is retained.
///
/// Besides what is recorded, the main actor is recognized at run time: its jobs, and every block
/// of the main queue, run on the main queue (on Linux, once `dispatchMain()` runs, not always on
/// the main thread), which `DispatchQueue.getSpecific` sees. No public API tells, without
/// trapping, whether another actor's executor runs this thread, so other actors are recognized
/// only when recorded.
@usableFromInline
enum SendingIsolation {
  // The record: the identity of the actor, unretained, or none. `@usableFromInline`, so that a
  // gate's delivery, inlined into a source of another module, reads and writes it with no call
  // of a generic function (each line of `follow` made two).
  @usableFromInline static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
  }()

  /// Runs `body` with `isolation` as this thread's sending isolation, then restores the one
  /// before (sends nest when a subscriber sends).
  /// A nil `isolation` keeps the one recorded around this call.
  @inlinable
  static func with<R>(_ isolation: (any Actor)?, _ body: () -> R) -> R {
    guard let isolation else { return body() }
    return recording(identity(of: isolation), over: recorded, body)
  }

  /// Runs `body` with the actor whose identity is `actor` recorded, where `before` is what this
  /// thread records now (``recorded``), then restores `before`. Writes nothing when `before` is
  /// already `actor`: a send from a subscriber that a delivery on the same actor called.
  @inlinable
  static func recording<R>(
    _ actor: UnsafeMutableRawPointer, over before: UnsafeMutableRawPointer?, _ body: () -> R
  ) -> R {
    guard before != actor else { return body() }
    pthread_setspecific(key, actor)
    defer { pthread_setspecific(key, before) }
    return body()
  }

  /// The identity of the actor recorded on this thread, or nil: one read of the record, which a
  /// gate's send keeps both to decide whether it runs on the gate's actor and for
  /// ``recording(_:over:_:)``.
  @inlinable
  static var recorded: UnsafeMutableRawPointer? {
    pthread_getspecific(key)
  }

  /// The identity by which the record knows `actor` (nothing is retained).
  @inlinable
  static func identity(of actor: any Actor) -> UnsafeMutableRawPointer {
    Unmanaged.passUnretained(actor as AnyObject).toOpaque()
  }
}
