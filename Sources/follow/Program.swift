import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts `follow` on its queue and parks the main thread; never returns.
enum Program {
  static func run(_ options: Options) -> Never {
    let queue = DispatchQueue(label: "follow")
    // What runs is kept here: this function never returns, so it lives as long as the process.
    let running: AnyObject = queue.sync {
      do {
        if options.paths.isEmpty { return try Demo(options: options, queue: queue) }
        let follower = Follower(options: options, queue: queue) { status in exit(status) }
        try follower.start()
        return follower
      } catch {
        printError("\(error)")
        exit(2)
      }
    }
    withExtendedLifetime(running) { dispatchMain() }
  }
}
