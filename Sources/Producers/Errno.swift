#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A system error number (`errno`), as reported by a failed system call.
///
/// Its description is the system's message followed by the number, for example
/// `Permission denied (errno 13)`.
public struct Errno: Error, Hashable, Sendable, RawRepresentable, CustomStringConvertible {
  /// The raw `errno` value.
  public var rawValue: Int32

  /// Wraps a raw `errno` value.
  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// Wraps a raw `errno` value.
  public init(_ rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// The system's message for this error, and its number.
  public var description: String {
    "\(String(cString: strerror(rawValue))) (errno \(rawValue))"
  }
}
