import Dispatch
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts `follow` on the main actor and hands the main thread to Dispatch, which runs the main
/// actor's work (every stream of `follow` delivers there); never returns.
@MainActor enum Program {
  static func run(_ options: Options) -> Never {
    // What runs is kept here: this function never returns, so it lives as long as the process.
    let running: AnyObject
    do {
      if options.paths.isEmpty {
        running = try Demo(options: options)
      } else {
        let follower = Follower(options: options) { status in exit(status) }
        try follower.start()
        running = follower
      }
    } catch {
      printError("\(error)")
      exit(2)
    }
    withExtendedLifetime(running) { MainLoop.run() }
  }
}
