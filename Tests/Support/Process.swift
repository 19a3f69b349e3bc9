import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Facts about the test process that some tests depend on.
public enum TestProcess {
  /// Whether the process was built with a sanitizer (`--sanitize=address` or `thread`), whose
  /// runtime changes what memory measurements mean: AddressSanitizer keeps freed memory in
  /// quarantine, ThreadSanitizer keeps shadow memory and access histories.
  public static let isSanitized: Bool =
    dlsym(defaultHandle, "__asan_init") != nil || dlsym(defaultHandle, "__tsan_init") != nil

  /// Makes the test process ignore SIGPIPE, once for the whole run, so that writing to a pipe
  /// whose reader is gone fails with EPIPE instead of killing the runner.
  ///
  /// Every test that needs it calls this, and so does the check of the signal suites before it
  /// records the dispositions: a test of another suite, running at the same time, then finds
  /// SIGPIPE already ignored and changes nothing under that check. (It did change it once, when a
  /// `follow` test fed its first input during a signal test, which then failed.)
  public static func ignoreBrokenPipes() {
    _ = brokenPipesIgnored
  }

  private static let brokenPipesIgnored: Void = {
    signal(SIGPIPE, SIG_IGN)
  }()

  /// The peak resident memory of the process so far, in bytes (`getrusage`).
  public static var peakResidentBytes: Int {
    var usage = rusage()
    #if canImport(Darwin)
      getrusage(RUSAGE_SELF, &usage)
      return Int(usage.ru_maxrss)  // bytes on Apple platforms
    #else
      getrusage(RUSAGE_SELF.rawValue, &usage)
      return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
    #endif
  }
}

/// `RTLD_DEFAULT`: look a symbol up in every loaded image.
private var defaultHandle: UnsafeMutableRawPointer? {
  #if canImport(Darwin)
    UnsafeMutableRawPointer(bitPattern: -2)
  #else
    nil
  #endif
}
