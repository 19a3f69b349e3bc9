#if canImport(Darwin)
  import Darwin

  extension sigaction {
    /// The handler of a `sigaction` that does not use `SA_SIGINFO`.
    var handler: (@convention(c) (Int32) -> Void)? {
      get { __sigaction_u.__sa_handler }
      set { __sigaction_u.__sa_handler = newValue }
    }
  }

  /// The calling thread's errno, without going through Swift's `errno` accessor; safe in a
  /// signal handler.
  @inline(__always)
  func errnoLocation() -> UnsafeMutablePointer<Int32> {
    __error()
  }
#endif
