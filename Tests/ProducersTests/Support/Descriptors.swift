import Foundation
import Producers
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pipe for tests: `read` and `write` ends.
struct Pipe {
  let read: Int32
  let write: Int32

  init() {
    var ends: [Int32] = [0, 0]
    precondition(pipe(&ends) == 0, "pipe failed")
    read = ends[0]
    write = ends[1]
  }

  func send(_ text: String) { send(Array(text.utf8)) }

  func send(_ bytes: [UInt8]) {
    let end = write
    let written = bytes.withUnsafeBytes { bytes in
      #if canImport(Glibc)
        Glibc.write(end, bytes.baseAddress, bytes.count)
      #else
        Darwin.write(end, bytes.baseAddress, bytes.count)
      #endif
    }
    precondition(written == bytes.count)
  }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "io-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> String { path + "/" + name }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Appends `text` to the file at `path`, creating it.
func append(_ text: String, to path: String) {
  let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
  precondition(fd >= 0, "open \(path) failed")
  let bytes = Array(text.utf8)
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  close(fd)
}

/// Whether `fd` is open in this process.
func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) != -1 }

/// The directory that lists this process's open descriptors: `/proc/self/fd` on Linux,
/// `/dev/fd` on Apple platforms (where listing it opens one more, in every count alike).
#if os(Linux)
  let descriptorDirectory = "/proc/self/fd"
#else
  let descriptorDirectory = "/dev/fd"
#endif

/// The number of descriptors open in this process (the entries of ``descriptorDirectory``).
func openDescriptorCount() -> Int {
  (try? FileManager.default.contentsOfDirectory(atPath: descriptorDirectory).count) ?? -1
}

/// Whether `fd` is still open on the file it referred to when `identity` was taken; a number
/// reused by another test for another file does not count.
func isStillOpen(_ fd: Int32, _ identity: FileIdentity?) -> Bool {
  identity != nil && (try? FileIdentity(descriptor: fd)) == identity
}

/// How many of this process's descriptors are open on the file `identity` names (one pipe end,
/// one file): a test's own pipe or file, so other tests running beside it do not count.
func descriptorsOpen(on identity: FileIdentity?) -> Int {
  guard let identity,
    let entries = try? FileManager.default.contentsOfDirectory(atPath: descriptorDirectory)
  else { return -1 }
  return entries.compactMap(Int32.init).count { (try? FileIdentity(descriptor: $0)) == identity }
}
