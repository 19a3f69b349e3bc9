import Foundation
import Producers

/// The file `--state` names: for each followed path, the files being read for it (a rotated-away
/// file still being read, then the current one) with how far each was printed.
///
/// It is JSON, written to a temporary file beside it, flushed to disk and renamed over it, so
/// that a reader (or a restart after a crash) finds the old state or the new one, never half of
/// one:
///
/// ```json
/// {
///   "format" : "follow state 1",
///   "machine" : "3d1219c7c4c5404aaa1f6d2a48adfda4",
///   "paths" : {
///     "/var/log/app.log" : [
///       { "device" : 2049, "inode" : 1835011, "offset" : 5120, "checked" : 4096,
///         "fingerprint" : "9f2c6a1be07d3c55", "midLine" : false }
///     ]
///   }
/// }
/// ```
///
/// Paths are absolute. `device` and `inode` name the file (so it is found again after a
/// rename), and `birth`, its birth time in nanoseconds where the system keeps one, tells it
/// from a file made later on the same inode; `offset` is the number of bytes of it whose lines were printed; `fingerprint` is
/// the FNV-1a hash of the `checked` bytes before the offset, which tell whether the file still
/// holds what was printed (see `FileCheckpoint`); `midLine` says that the last line printed had
/// no newline yet. `machine` is the machine's identity (`/etc/machine-id`, or its host name):
/// device and inode numbers mean nothing on another machine.
struct StateFile: Codable, Equatable {
  static let currentFormat = "follow state 1"

  /// How far one file was printed.
  struct Entry: Codable, Equatable {
    var device: UInt64
    var inode: UInt64
    /// The file's birth time in nanoseconds since 1970, where the system keeps one; absent in
    /// states written before it was recorded.
    var birth: Int64?
    var offset: Int64
    var checked: Int
    var fingerprint: String
    var midLine: Bool

    var identity: FileIdentity { FileIdentity(device: device, inode: inode, birth: birth) }

    init(identity: FileIdentity, position: FileCheckpoint, midLine: Bool) {
      device = identity.device
      inode = identity.inode
      birth = identity.birth
      offset = position.offset
      checked = position.window.count
      fingerprint = Self.hex(position.fingerprint)
      self.midLine = midLine
    }

    static func hex(_ value: UInt64) -> String {
      let digits = String(value, radix: 16)
      return String(repeating: "0", count: 16 - digits.count) + digits
    }
  }

  var format = currentFormat
  var machine = StateFile.thisMachine
  /// For each absolute path, its files: rotated-away ones first, the current one last.
  var paths: [String: [Entry]] = [:]

  /// Why a state file was not used; the message says what `follow` does instead.
  struct Problem: Error, CustomStringConvertible {
    var description: String
  }

  /// Why `path` cannot hold a state file at all: something other than a regular file is there
  /// (a directory, a device, a pipe, a socket), which `follow` must neither read (a pipe or a
  /// device could hold it up for good), nor move aside as an unusable state, nor replace with
  /// one (`/dev/null`, as root). Nil when a regular file or nothing is there (symbolic links
  /// followed).
  static func refusal(of path: String) -> Problem? {
    var info = stat()
    guard stat(path, &info) == 0, !info.isRegular else { return nil }
    let kind: String
    switch info.st_mode & S_IFMT {
    case S_IFDIR: kind = "a directory"
    case S_IFIFO: kind = "a pipe"
    case S_IFCHR, S_IFBLK: kind = "a device"
    case S_IFSOCK: kind = "a socket"
    default: kind = "no regular file"
    }
    return Problem(
      description: "state file \(path) is \(kind), not a file: give --state a file's path")
  }

  /// Reads the state at `path`: nil when there is no file there yet, a ``Problem`` when it
  /// cannot be used.
  static func load(from path: String) -> Result<StateFile?, Problem> {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch CocoaError.fileReadNoSuchFile {
      return .success(nil)
    } catch {
      return .failure(Problem(description: "cannot read state file \(path): \(reason(error))"))
    }
    let state: StateFile
    do {
      state = try JSONDecoder().decode(StateFile.self, from: data)
    } catch {
      return .failure(
        Problem(description: "state file \(path) is not a follow state file (\(reason(error)))"))
    }
    guard state.format == currentFormat else {
      return .failure(
        Problem(
          description: "state file \(path) has format '\(state.format)', not '\(currentFormat)'"))
    }
    guard state.machine == thisMachine else {
      return .failure(
        Problem(
          description:
            "state file \(path) was written on another machine (\(state.machine)); its files' numbers mean nothing here"
        ))
    }
    return .success(state)
  }

  /// Writes the state to `path` atomically: a temporary file beside it, flushed to disk, then
  /// renamed over it. A problem when it could not.
  func save(to path: String) -> Problem? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let temporary = path + ".tmp-\(getpid())"
    // What was being done, for the message: the temporary file is named when it is the one
    // that failed (a state file in /proc, or in a directory that cannot be written).
    var step = "cannot encode it"
    let failure = { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    do {
      let data = try encoder.encode(self)
      step = "cannot create \(temporary) beside it"
      let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw failure() }
      defer { close(fd) }
      step = "cannot write \(temporary)"
      try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
        var rest = bytes
        while !rest.isEmpty {
          let written = write(fd, rest.baseAddress, rest.count)
          if written < 0 && errno == EINTR { continue }
          guard written > 0 else { throw failure() }
          rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
      }
      step = "cannot flush \(temporary) to disk"
      guard fsync(fd) == 0 else { throw failure() }
      step = "cannot rename \(temporary) over it"
      guard rename(temporary, path) == 0 else { throw failure() }
      return nil
    } catch {
      unlink(temporary)
      return Problem(
        description: "cannot write state file \(path): \(step): \(Self.reason(error))")
    }
  }

  /// This machine's identity: `/etc/machine-id` (or D-Bus's copy of it), else its host name.
  static let thisMachine: String = {
    for file in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
      if let text = try? String(contentsOfFile: file, encoding: .utf8) {
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !id.isEmpty { return id }
      }
    }
    return "host " + ProcessInfo.processInfo.hostName
  }()

  /// A short reason for `error`.
  private static func reason(_ error: Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context): return context.debugDescription
    case DecodingError.keyNotFound(let key, _): return "no \(key.stringValue)"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return "\(path): \(context.debugDescription)"
    case let error as POSIXError: return String(cString: strerror(error.code.rawValue))
    default: return error.localizedDescription
    }
  }
}
