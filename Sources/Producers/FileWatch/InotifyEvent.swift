#if os(Linux) || os(Android)
  import Dispatch
  import IndefiniteObservable
  import Multicast

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// One event read from an inotify descriptor.
  struct InotifyEvent: Sendable {
    var watch: Int32
    var mask: UInt32
    /// What ties the two halves of a rename together: its `IN_MOVED_FROM` and `IN_MOVED_TO`
    /// have the same (0 for any other event).
    var cookie: UInt32
    var name: String
  }

  /// The events of one read (inotify returns whole events only), decoded as they are iterated,
  /// from the bytes read: no array is made for them. Valid only during the call that it is
  /// handed to (the bytes are the reader's buffer).
  struct InotifyEvents: Sequence {
    let raw: UnsafeRawBufferPointer

    /// The size of an event with no name.
    static var headerSize: Int { 16 }

    func makeIterator() -> Iterator { Iterator(raw: raw) }

    /// The watch descriptor that every event names, or nil (no event, or several watches).
    var onlyWatch: Int32? {
      guard raw.count >= Self.headerSize else { return nil }
      let first = watch(at: 0)
      return firstEvent { offset, _ in watch(at: offset) != first } == nil ? first : nil
    }

    /// Whether the first half of a rename (`IN_MOVED_FROM`) is here without its second half
    /// (`IN_MOVED_TO`, with the same cookie): read between the two, or a move to a directory
    /// not watched.
    var hasHalfOfARename: Bool {
      firstEvent { offset, next in
        guard mask(at: offset) & UInt32(IN_MOVED_FROM) != 0 else { return false }
        let cookie = cookie(at: offset)
        let secondHalf = firstEvent(from: next) { offset, _ in
          mask(at: offset) & UInt32(IN_MOVED_TO) != 0 && self.cookie(at: offset) == cookie
        }
        return secondHalf == nil
      } != nil
    }

    /// The events before the first one whose mask has any of `mask`, and those after it; nil
    /// when none has.
    func split(atFirst mask: UInt32) -> (before: InotifyEvents, after: InotifyEvents)? {
      guard
        let (offset, next) = firstEvent(where: { offset, _ in self.mask(at: offset) & mask != 0 })
      else { return nil }
      return (
        InotifyEvents(raw: UnsafeRawBufferPointer(rebasing: raw[..<offset])),
        InotifyEvents(raw: UnsafeRawBufferPointer(rebasing: raw[Swift.min(next, raw.count)...]))
      )
    }

    /// The first event, from the one at `start` on, for which `found` is true, given its offset
    /// and the next event's: its offset and the next one's. Reads headers only (no name is
    /// decoded), for the checks of a whole read.
    @inline(__always)
    private func firstEvent(
      from start: Int = 0, where found: (_ offset: Int, _ next: Int) -> Bool
    ) -> (offset: Int, next: Int)? {
      var offset = start
      while offset + Self.headerSize <= raw.count {
        let next = offset + Self.headerSize + Self.nameLength(in: raw, at: offset)
        if found(offset, next) { return (offset, next) }
        offset = next
      }
      return nil
    }

    /// The watch descriptor of the event at `offset`.
    private func watch(at offset: Int) -> Int32 {
      raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
    }

    /// The mask of the event at `offset`.
    private func mask(at offset: Int) -> UInt32 {
      raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
    }

    /// The cookie of the event at `offset`.
    private func cookie(at offset: Int) -> UInt32 {
      raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
    }

    /// The length of the name of the event at `offset` (padding included).
    static func nameLength(in raw: UnsafeRawBufferPointer, at offset: Int) -> Int {
      Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
    }

    /// Decodes the events one at a time.
    struct Iterator: IteratorProtocol {
      let raw: UnsafeRawBufferPointer
      var offset = 0

      // Inlined where the events are taken in: one event a line of `follow`, with no name.
      @inline(__always)
      mutating func next() -> InotifyEvent? {
        guard offset + InotifyEvents.headerSize <= raw.count else { return nil }
        let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
        let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
        let length = InotifyEvents.nameLength(in: raw, at: offset)
        let start = offset + InotifyEvents.headerSize
        offset = start + length
        // No name (an event of the watched file itself, the usual one): no decoding.
        guard length > 0 else {
          return InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: "")
        }
        let name = Self.name(in: raw, from: start, length: length)
        return InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: name)
      }

      /// The name of `length` bytes (padded with zeros) at `start`, decoded: out of line, as
      /// most events have none.
      @inline(never)
      private static func name(in raw: UnsafeRawBufferPointer, from start: Int, length: Int)
        -> String
      {
        let nameBytes = raw[start..<Swift.min(raw.count, start + length)]
        return String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
      }
    }
  }
#endif
