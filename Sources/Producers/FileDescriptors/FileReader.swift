#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a regular file from a position on, on the calling thread, and keeps that position: the
/// one reader of a file's bytes, which the lines and bytes streams of ``FileDescriptors`` read
/// regular files with, and which a program that follows a file can call itself where it learns
/// that the file changed (a ``FileWatch`` delivery), with no stream between.
///
/// ```swift
/// var reader = FileReader(descriptor: fd)  // from the descriptor's offset
/// var splitter = LineSplitter()
/// let outcome = reader.read { bytes in splitter.split(bytes) { line in print(line.text) } }
/// if case .success(.truncated) = outcome { splitter.reset() }  // read again from the start
/// ```
///
/// Each read is one `pread` that also checks the position (``FileCheckpoint/readOn(_:into:upTo:)``):
/// a file truncated, or truncated and written again past the position, since the last read is
/// reported as ``Outcome/truncated(rewritten:)`` with the position moved back to its start,
/// rather than read from the middle of its new content. A read that stops short has reached
/// the end: what a change appends costs one `pread`. The reader reads into a buffer of its own,
/// kept from call to call, so a read allocates nothing once it is there: 4 KiB and the compared
/// bytes at first, and 64 KiB once a read fills it when more was wanted (a file that grows
/// fast; that read is made again, into the larger buffer, so a change of up to 64 KiB is one
/// piece).
///
/// A file whose size reads 0 in `stat` yet has a byte at its start is a `/proc` or `/sys`
/// file, whose content is made anew at each read (`/proc/meminfo`): it has no length, and
/// bytes that change between two reads are no sign of a rewrite. Such a file is never reported
/// truncated; a read takes whatever lies past the position, until a read returns nothing.
///
/// - Ownership: the descriptor stays the caller's: the reader never closes it, nor moves its
///   offset. Keep it open while you read.
/// - Threading: a value type: use each one from one thread at a time (a stream's subscription,
///   or an actor).
/// - Bad input: a descriptor that cannot be read (closed, a directory) is the `errno` of its
///   failed `pread`, returned by ``read(upTo:_:)``.
public struct FileReader: Sendable {
  /// The descriptor read.
  public let descriptor: Int32
  /// The position: the bytes read so far, with the last of them, to tell a truncated file.
  /// Set it to read from elsewhere.
  public var checkpoint: FileCheckpoint

  /// The most new bytes one `pread` takes: 64 KiB.
  static let largestRead = 65_536
  /// The new bytes a first `pread` takes: what a change most often appends fits.
  private static let firstRead = 4_096

  // The bytes read: the compared ones, then the new ones. Empty until the first read.
  private var buffer: [UInt8] = []
  // Whether the file may be compared with the checkpoint (not a `/proc` file), and whether
  // `stat` once gave it a length: then it is no `/proc` file, and is not asked again.
  private var lengthIsKnown = true
  private var hasShownLength = false

  /// Reads `fd` from `checkpoint` on; by default, from the descriptor's offset, with the
  /// bytes before it to check (``FileCheckpoint/reading(_:at:windowLength:)``).
  public init(descriptor fd: Int32, at checkpoint: FileCheckpoint? = nil) {
    descriptor = fd
    if let checkpoint {
      self.checkpoint = checkpoint
    } else {
      let offset = System.offset(fd)
      self.checkpoint = FileCheckpoint.reading(fd, at: offset) ?? FileCheckpoint(offset: offset)
    }
  }

  /// What a read found.
  public enum Outcome: Sendable, Hashable {
    /// The read reached the file's end.
    case endOfFile
    /// The read stopped at its most bytes: the file may hold more.
    case more
    /// The file no longer holds the bytes before the position: it was truncated (`rewritten`
    /// when it is written again past the position already). The position is back at the start
    /// of the file, and nothing was read after this was seen: read again to read from there.
    case truncated(rewritten: Bool)
  }

  /// Reads what follows the position, up to `maximumCount` bytes (at least one read), handing
  /// each piece read to `body` once the position is past it, in order; stops at the file's
  /// end, at `maximumCount`, or when the file was truncated.
  ///
  /// - Parameters:
  ///   - maximumCount: The most bytes to read in this call.
  ///   - body: Called with each piece read, at most 64 KiB, valid during the
  ///     call only. It must not use this reader, which is being changed: read ``checkpoint``
  ///     once this returns.
  /// - Returns: What the read found, or the `errno` of a failed `pread`.
  public mutating func read(
    upTo maximumCount: Int = .max, _ body: (UnsafeRawBufferPointer) -> Void
  ) -> Result<Outcome, Errno> {
    if !hasShownLength { checkLength() }
    if buffer.isEmpty {
      buffer = [UInt8](repeating: 0, count: FileCheckpoint.comparedLimit + Self.firstRead)
    }
    var total = 0
    while true {
      let capacity = buffer.count - FileCheckpoint.comparedLimit
      let wanted = max(1, maximumCount - total)
      let room = min(capacity, wanted)
      // A first buffer that more is wanted than fits in: a read that fills it is read again,
      // whole, into a larger one (one piece for a change of up to 64 KiB).
      let growing = capacity < Self.largestRead && wanted > capacity
      // The buffer and the position are separate parts of the reader: the read changes the
      // position while it holds the buffer.
      let found = buffer.withUnsafeMutableBytes {
        Self.readOnce(
          descriptor, at: &checkpoint, lengthIsKnown: lengthIsKnown, into: $0, room: room,
          unlessFilled: growing, body)
      }
      switch found {
      case .failure(let errno): return .failure(errno)
      case .success(.filled):
        buffer = [UInt8](repeating: 0, count: FileCheckpoint.comparedLimit + Self.largestRead)
      case .success(.holds(let count)):
        total += count
        let atEnd = count == 0 || (lengthIsKnown && count < room)
        if atEnd { return .success(.endOfFile) }
        if total >= maximumCount { return .success(.more) }
      case .success(.truncated(let rewritten)):
        checkpoint = FileCheckpoint()
        return .success(.truncated(rewritten: rewritten))
      }
    }
  }

  /// What one `pread` found.
  private enum Found {
    /// The file holds the position; `count` new bytes were read (and handed over).
    case holds(Int)
    /// The read filled the buffer, and was not taken: the file holds more.
    case filled
    case truncated(rewritten: Bool)
  }

  /// One `pread` of at most `room` new bytes into `buffer`, checked against the position when
  /// the file has a length; the bytes go to `body` once the position is past them, unless
  /// they fill `room` and `unlessFilled`.
  private static func readOnce(
    _ descriptor: Int32, at checkpoint: inout FileCheckpoint, lengthIsKnown: Bool,
    into buffer: UnsafeMutableRawBufferPointer, room: Int, unlessFilled: Bool,
    _ body: (UnsafeRawBufferPointer) -> Void
  ) -> Result<Found, Errno> {
    let piece: UnsafeRawBufferPointer
    if lengthIsKnown {
      switch checkpoint.readOn(descriptor, into: buffer, upTo: room) {
      case .failure(let errno): return .failure(errno)
      case .success((.holds, let bytes)): piece = bytes
      case .success((.shorter, _)): return .success(.truncated(rewritten: false))
      case .success((.changed, _)): return .success(.truncated(rewritten: true))
      }
    } else {
      let part = UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])
      switch System.read(descriptor, into: part, at: checkpoint.offset) {
      case .failure(let errno): return .failure(errno)
      case .success(let count): piece = UnsafeRawBufferPointer(rebasing: part[..<count])
      }
    }
    if unlessFilled && piece.count == room { return .success(.filled) }
    if !piece.isEmpty {
      checkpoint.advance(buffer: piece)
      body(piece)
    }
    return .success(.holds(piece.count))
  }

  /// Asks `stat` for the file's length, checked against its first byte: a file of 0 bytes
  /// that has one is a `/proc` or `/sys` file, which has no length to compare with.
  private mutating func checkLength() {
    guard case .success(let info) = System.status(descriptor) else { return }
    guard info.st_size == 0 else {
      hasShownLength = true
      lengthIsKnown = true
      return
    }
    let first = withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { buffer in
      System.read(descriptor, into: buffer, at: 0)
    }
    lengthIsKnown = first != .success(1)
  }
}
