#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The static isolation of the code that is sending on this thread, for the actor-bound
/// subscribers that its send reaches synchronously.
///
/// ``SharedEmitter`` sets it around each send and subscribe, from the `isolation` argument the
/// compiler passed, and its actor-bound entries read it: a subscriber bound to the sender's own
/// actor is then called at once, and any other one hops. Only the identity of the actor is kept,
/// for the duration of the call that set it, so nothing is retained.
enum SendingIsolation {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
  }()

  /// Runs `body` with `isolation` as this thread's sending isolation, then restores the one
  /// before (sends nest when a subscriber sends).
  static func with<R>(_ isolation: (any Actor)?, _ body: () -> R) -> R {
    let before = pthread_getspecific(key)
    pthread_setspecific(
      key, isolation.map { UnsafeRawPointer(Unmanaged.passUnretained($0 as AnyObject).toOpaque()) })
    defer { pthread_setspecific(key, before) }
    return body()
  }

  /// Whether the code sending on this thread is statically isolated to `actor`.
  static func isOn(_ actor: any Actor) -> Bool {
    guard let current = pthread_getspecific(key) else { return false }
    return UnsafeMutableRawPointer(mutating: current)
      == Unmanaged.passUnretained(actor as AnyObject).toOpaque()
  }
}
