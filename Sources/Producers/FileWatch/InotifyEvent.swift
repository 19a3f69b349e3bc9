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
    var name: String

    /// The events of one read (inotify returns whole events only).
    static func parse(_ raw: UnsafeRawBufferPointer) -> [InotifyEvent] {
      var events: [InotifyEvent] = []
      var offset = 0
      while offset + 16 <= raw.count {
        let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
        let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        // No name (an event of the watched file itself, the usual one): no decoding.
        let nameBytes = raw[(offset + 16)..<min(raw.count, offset + 16 + length)]
        let name =
          length == 0 ? "" : String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        events.append(InotifyEvent(watch: watch, mask: mask, name: name))
        offset += 16 + length
      }
      return events
    }
  }
#endif
