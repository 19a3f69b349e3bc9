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
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
  }()

  /// Runs `body` with `isolation` as this thread's sending isolation, then restores the one
  /// before (sends nest when a subscriber sends).
  /// A nil `isolation` keeps the one recorded around this call.
  @usableFromInline
  static func with<R>(_ isolation: (any Actor)?, _ body: () -> R) -> R {
    guard let isolation else { return body() }
    let before = pthread_getspecific(key)
    pthread_setspecific(
      key, UnsafeRawPointer(Unmanaged.passUnretained(isolation as AnyObject).toOpaque()))
    defer { pthread_setspecific(key, before) }
    return body()
  }

  /// Whether the code on this thread runs isolated to `actor`: recorded, or, for the main
  /// actor, on the main queue.
  @usableFromInline
  static func runs(_ actor: any Actor) -> Bool {
    isOn(actor) || (actor === MainActor.shared && MainQueue.isCurrent)
  }

  /// Whether the code sending on this thread is statically isolated to `actor`.
  static func isOn(_ actor: any Actor) -> Bool {
    guard let current = pthread_getspecific(key) else { return false }
    return UnsafeMutableRawPointer(mutating: current)
      == Unmanaged.passUnretained(actor as AnyObject).toOpaque()
  }
}
