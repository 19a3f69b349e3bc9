#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A read position in a regular file, with the bytes just before it (up to 4 KiB): enough to
/// tell, later, a file that only grew since from one that was truncated and written again,
/// even when the new content is already longer than the position.
///
/// A file that shrank below the position was truncated; one whose last ``comparedLimit`` bytes
/// before the position changed was rewritten (logrotate's `copytruncate` with a fast writer, or
/// an editor saving in place). Both are told by ``verdict(for:)``. A rewrite that puts back the
/// very same bytes there cannot be told from growth, by this or any check of the content. The
/// whole window, up to ``windowLimit``, goes into ``fingerprint``, for a check after a restart.
///
/// The lines and bytes streams of ``FileDescriptors`` keep one for each followed regular file,
/// and report ``DescriptorStatus/truncated`` when it no longer holds. A program that records
/// where it stopped, to go on after a restart, can keep one too and store its ``offset`` and
/// ``fingerprint``:
///
/// ```swift
/// var checkpoint = FileCheckpoint()
/// checkpoint.advance(over: Array("one\ntwo\n".utf8))  // the bytes read from the start
/// print(checkpoint.offset)  // 8
/// ```
///
/// A value type: use each one from one thread at a time.
public struct FileCheckpoint: Sendable, Hashable {
  /// The most bytes before the position that a checkpoint keeps: 4096.
  public static let windowLimit = 4096

  /// The most bytes before the position that a check reads and compares with the file
  /// (``verdict(for:)``, ``readOn(_:into:upTo:)``): the last 256 of the window.
  ///
  /// A follower checks at each read, so these bytes are read and compared at each event: a
  /// few lines of a log, which tell a rewritten file from the one read as well as 4 KiB do in
  /// practice (a rewrite is new content), at a sixteenth of the bytes copied and compared for
  /// each line appended.
  public static let comparedLimit = 256

  /// The position: the number of bytes of the file before it.
  public private(set) var offset: Int64
  /// The bytes just before ``offset``: the last ones read, at most ``windowLimit``. Shorter
  /// near the start of the file, or after ``rewound(by:)``. (A new array at each use.)
  public var window: [UInt8] { Array(windowBytes) }

  // The window is the `windowCount` bytes of `recent` that end at `end`. Once the checkpoint
  // moves, `recent` is a buffer of twice `windowLimit` bytes, allocated once: the bytes read
  // are copied in after the window, and the window is moved down to its front only when the
  // buffer's end is reached, not at each move (which moved the 4 KiB that stay down, for each
  // line a follower reads: `CheckpointCostTimingTests`); no append, no growth.
  private var recent: [UInt8]
  private var windowCount: Int
  private var end: Int

  /// The window's bytes, in ``recent``.
  private var windowBytes: ArraySlice<UInt8> { recent[(end - windowCount)..<end] }

  /// A position with the bytes before it; `window` keeps at most its last ``windowLimit``
  /// bytes and at most `offset` bytes, and a negative offset counts as 0. With no bytes
  /// (the default), the position can only be checked against the file's length.
  public init(offset: Int64 = 0, window: [UInt8] = []) {
    self.offset = max(0, offset)
    let kept = Int(min(Int64(Self.windowLimit), self.offset))
    recent = window.count > kept ? Array(window.suffix(kept)) : window
    windowCount = recent.count
    end = recent.count
  }

  /// Whether two checkpoints have the same position and the same window.
  public static func == (left: FileCheckpoint, right: FileCheckpoint) -> Bool {
    left.offset == right.offset
      && left.windowBytes.elementsEqual(right.windowBytes)
  }

  /// Hashes the position and the window, which `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(offset)
    hasher.combine(windowCount)
    for byte in windowBytes { hasher.combine(byte) }
  }

  /// How many bytes a check compares: the window's last ``comparedLimit``.
  private var comparedCount: Int { min(windowCount, Self.comparedLimit) }

  /// Calls `body` with the last `count` bytes of the window, with no copy.
  private func withWindow<R>(last count: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    recent.withUnsafeBytes { bytes in
      body(UnsafeRawBufferPointer(rebasing: bytes[(end - count)..<end]))
    }
  }

  /// The checkpoint at `offset` of the open file `fd`, with its bytes before `offset` (at
  /// most `windowLength`), read with `pread` (the descriptor's own offset does not move). Nil
  /// when the file ends before `offset`, or the read fails.
  public static func reading(
    _ fd: Int32, at offset: Int64, windowLength: Int = windowLimit
  ) -> FileCheckpoint? {
    let length = Int(min(Int64(max(0, min(windowLength, windowLimit))), max(0, offset)))
    guard let bytes = readExactly(fd, count: max(length, offset > 0 ? 1 : 0), endingAt: offset)
    else { return nil }
    return FileCheckpoint(offset: offset, window: Array(bytes.suffix(length)))
  }

  /// Moves the position past `bytes`, the next bytes read from the file: an
  /// `UnsafeRawBufferPointer` (a buffer read into), a `[UInt8]`, or any other collection of
  /// bytes (copied first unless contiguous).
  @inlinable
  public mutating func advance(over bytes: some Collection<UInt8>) {
    if bytes.withContiguousStorageIfAvailable({ advance(buffer: UnsafeRawBufferPointer($0)) })
      == nil
    {
      Array(bytes).withUnsafeBytes { advance(buffer: $0) }
    }
  }

  /// ``advance(over:)`` past a buffer.
  @usableFromInline
  mutating func advance(buffer bytes: UnsafeRawBufferPointer) {
    offset += Int64(bytes.count)
    if bytes.count >= Self.windowLimit {
      // The window is the last bytes read, at the front of the buffer.
      if recent.count < 2 * Self.windowLimit {
        recent = [UInt8](repeating: 0, count: 2 * Self.windowLimit)
      }
      let last = bytes.baseAddress! + (bytes.count - Self.windowLimit)
      recent.withUnsafeMutableBytes {
        $0.baseAddress!.copyMemory(from: last, byteCount: Self.windowLimit)
      }
      windowCount = Self.windowLimit
      end = Self.windowLimit
      return
    }
    if end + bytes.count > recent.count { makeRoom() }
    if let source = bytes.baseAddress {
      let end = end
      recent.withUnsafeMutableBytes {
        ($0.baseAddress! + end).copyMemory(from: source, byteCount: bytes.count)
      }
    }
    end += bytes.count
    windowCount = min(windowCount + bytes.count, Self.windowLimit)
  }

  /// Moves the window to the front of ``recent``, a buffer of twice ``windowLimit`` bytes
  /// (made now, with the window copied in, when `recent` is shorter): room for at least
  /// ``windowLimit`` bytes more after it.
  private mutating func makeRoom() {
    let start = end - windowCount
    if recent.count < 2 * Self.windowLimit {
      var buffer = [UInt8](repeating: 0, count: 2 * Self.windowLimit)
      buffer.replaceSubrange(..<windowCount, with: recent[start..<end])
      recent = buffer
    } else if start > 0 {
      let count = windowCount
      recent.withUnsafeMutableBytes {
        $0.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count)
      }
    }
    end = windowCount
  }

  /// The checkpoint `count` bytes earlier (clamped to the start of the file), keeping the
  /// window's bytes that come before it: for a reader that has read bytes it has not used
  /// yet, such as the start of an unfinished line.
  public func rewound(by count: Int) -> FileCheckpoint {
    let count = Int(min(Int64(max(0, count)), offset))
    return FileCheckpoint(
      offset: offset - Int64(count),
      window: Array(windowBytes.dropLast(min(count, windowCount))))
  }

  /// What became of the checkpoint in a file.
  public enum Verdict: Sendable, Hashable {
    /// The file still reaches the position, with the same bytes before it: it only grew (or
    /// was rewritten with the very same bytes there, which no check of the content can tell).
    case holds
    /// The file ends before the position: it was truncated.
    case shorter
    /// The bytes before the position changed: the file was truncated and written again past
    /// the position, or rewritten in place.
    case changed
  }

  /// Whether the open file `fd` still holds this checkpoint: it reads the bytes before
  /// ``offset`` that it compares, the window's last ones up to ``comparedLimit`` (one byte when
  /// the window is empty), with `pread`, which does not move the descriptor's offset, and
  /// compares them with the window's. A read that fails with an error counts as ``Verdict/holds``: the
  /// reader's own next read reports the error.
  ///
  /// Its cost is one `pread` of at most ``comparedLimit`` bytes, into a buffer on the stack,
  /// and one `memcmp`: no allocation. A follower that goes on to read the new bytes saves that
  /// `pread` with ``readOn(_:into:upTo:)``, which checks in the read of the new bytes.
  public func verdict(for fd: Int32) -> Verdict {
    guard offset > 0 else { return .holds }
    let count = max(comparedCount, 1)
    return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
      switch Self.fill(buffer, from: fd, endingAt: offset) {
      case .failure: return .holds
      case .success(let filled) where filled < count: return .shorter
      case .success:
        guard windowCount > 0 else { return .holds }
        let same = withWindow(last: count) { memcmp($0.baseAddress!, buffer.baseAddress!, count) }
        return same == 0 ? .holds : .changed
      }
    }
  }

  /// Reads what follows the position into `buffer` and tells whether the file still holds the
  /// checkpoint, in one `pread`: the window's last ``comparedLimit`` bytes (one byte when the
  /// window is empty, none at offset 0) are read in front of the new ones and compared. A follower that
  /// calls ``verdict(for:)`` and then reads makes two reads, and a rewrite between them goes
  /// unseen; this makes one. A read that stops short of the end of `buffer` has reached the
  /// file's end: a regular file's `pread` returns fewer bytes than asked only there.
  ///
  /// ```swift
  /// let found = checkpoint.readOn(fd, into: buffer)  // buffer: comparedLimit + 64 KiB, say
  /// if case .success((.holds, let bytes)) = found { checkpoint.advance(over: bytes) }
  /// ```
  ///
  /// The position does not move (call ``advance(over:)`` with the
  /// bytes), nor does the descriptor's offset.
  ///
  /// - Parameters:
  ///   - fd: An open regular file.
  ///   - buffer: Where the compared bytes and the new ones are read: at most
  ///     ``comparedLimit`` bytes more than the most new ones wanted.
  ///   - maximumCount: The most new bytes to read (as many as fit in `buffer` by default; a
  ///     negative count is 0).
  /// - Returns: The verdict, with the bytes past the position, in `buffer`: as many as fit
  ///   after the window's bytes, at most `maximumCount`, and empty unless the verdict is
  ///   ``Verdict/holds``. Or the errno of a failed read. With no room for a new byte, nothing
  ///   new is read: the verdict is then that of ``verdict(for:)``.
  public func readOn(
    _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, upTo maximumCount: Int = .max
  ) -> Result<(verdict: Verdict, bytes: UnsafeRawBufferPointer), Errno> {
    let behind = offset > 0 ? max(comparedCount, 1) : 0
    let none = UnsafeRawBufferPointer(start: nil, count: 0)
    let room = min(buffer.count - behind, maximumCount)
    guard room > 0 else { return .success((verdict(for: fd), none)) }
    let count: Int
    let part = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(behind + room)])
    switch System.read(fd, into: part, at: offset - Int64(behind)) {
    case .failure(let errno): return .failure(errno)
    case .success(let read): count = read
    }
    guard count >= behind else { return .success((.shorter, none)) }
    if windowCount > 0 {
      let same = withWindow(last: behind) { memcmp($0.baseAddress!, buffer.baseAddress!, behind) }
      guard same == 0 else { return .success((.changed, none)) }
    }
    return .success((.holds, UnsafeRawBufferPointer(rebasing: buffer[behind..<count])))
  }

  /// A 64-bit FNV-1a hash of ``window``, to store with ``offset`` instead of the bytes
  /// themselves: a later ``reading(_:at:windowLength:)`` with the window's length gives a
  /// checkpoint with the same fingerprint when the file still holds it.
  public var fingerprint: UInt64 {
    windowBytes.reduce(0xCBF2_9CE4_8422_2325) {
      ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3
    }
  }

  /// The `count` bytes ending at `end`, or nil when the file has fewer or the read fails.
  private static func readExactly(_ fd: Int32, count: Int, endingAt end: Int64) -> [UInt8]? {
    guard case .success(let bytes) = read(fd, count: count, endingAt: end), bytes.count == count
    else { return nil }
    return bytes
  }

  /// The bytes from `end - count` to `end` that the file has (fewer when it ends before), or
  /// the error of a failed read.
  private static func read(_ fd: Int32, count: Int, endingAt end: Int64) -> Result<[UInt8], Errno> {
    guard count > 0 else { return .success([]) }
    var bytes = [UInt8](repeating: 0, count: count)
    let filled = bytes.withUnsafeMutableBytes { fill($0, from: fd, endingAt: end) }
    return filled.map { Array(bytes[..<$0]) }
  }

  /// Fills `buffer` with the bytes that end at `end`, from `end - buffer.count`: how many the
  /// file has (fewer when it ends before), or the error of a failed read.
  private static func fill(
    _ buffer: UnsafeMutableRawBufferPointer, from fd: Int32, endingAt end: Int64
  ) -> Result<Int, Errno> {
    let count = buffer.count
    var filled = 0
    while filled < count {
      let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
      switch System.read(fd, into: rest, at: end - Int64(count - filled)) {
      case .success(0): return .success(filled)
      case .success(let read): filled += read
      case .failure(let errno): return .failure(errno)
      }
    }
    return .success(filled)
  }
}
