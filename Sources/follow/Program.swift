import Dispatch
import Producers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts `follow` on the main actor and runs the main thread's loop (`MainLoop`), which reads
/// what `follow` waits for and runs the main actor's work (every stream of `follow` delivers
/// there); never returns.
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
    withExtendedLifetime(running) { () -> Never in
      // The main thread reads the followed files' changes and prints them, with no thread
      // switch between (`MainLoop`). It refuses only off the main thread or a second time.
      do { try MainLoop.run() } catch {
        printError("\(error)")
        dispatchMain()
      }
    }
  }
}
