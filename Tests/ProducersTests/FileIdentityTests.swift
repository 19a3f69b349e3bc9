import Foundation
import Producers
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which file a descriptor or a path is: the same file by either, after a rename and through a
/// link; another file when one replaces it at its path; an error when the path is gone.
@Suite(.checksLiveResources) struct FileIdentityTests {
  @Test func aFileHasOneIdentityByItsDescriptorAndByItsPaths() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    let before = Self.now()
    append("one\n", to: path)
    let after = Self.now()
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let opened = try FileIdentity(descriptor: fd)
    let atPath = try FileIdentity(path: path)
    #expect(opened == atPath)
    #expect(opened.matches(atPath) && atPath.matches(opened))
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(opened.inode == UInt64(info.st_ino))
    #expect(opened.device == UInt64(truncatingIfNeeded: info.st_dev))
    // Where the file system records birth times (ext4 here), the time is the file's making,
    // read at the right place (a wrong offset in `statx`'s result would be far off). The
    // file system's clock is coarse: a few milliseconds of slack.
    if let birth = opened.birth {
      #expect((before - 50_000_000)...(after + 50_000_000) ~= birth)
    }
    // A hard link and a symbolic link name the same file.
    #expect(link(path, directory.file("hard")) == 0)
    #expect(symlink(path, directory.file("soft")) == 0)
    #expect(try FileIdentity(path: directory.file("hard")) == opened)
    #expect(try FileIdentity(path: directory.file("soft")) == opened)
  }

  @Test func aRenamedFileKeepsItsIdentityAndItsOldPathHasNone() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("one\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let opened = try FileIdentity(descriptor: fd)
    #expect(rename(path, directory.file("log.1")) == 0)
    #expect(opened.matches(try FileIdentity(path: directory.file("log.1"))))
    #expect(try FileIdentity(descriptor: fd) == opened)
    #expect(throws: Errno(ENOENT)) { try FileIdentity(path: path) }
  }

  @Test func aFileReplacedAtItsPathIsAnotherFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("one\n", to: path)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let opened = try FileIdentity(descriptor: fd)
    append("new\n", to: directory.file("log.tmp"))
    #expect(rename(directory.file("log.tmp"), path) == 0)  // as an editor saves a file
    let replacement = try FileIdentity(path: path)
    #expect(!opened.matches(replacement))
    #expect(!replacement.matches(opened))
    #expect(opened != replacement)
  }

  @Test func aVanishedPathOrADescriptorThatIsNotOpenThrowsItsErrno() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("log")
    append("one\n", to: path)
    let fd = open(path, O_RDONLY)
    let opened = try FileIdentity(descriptor: fd)
    #expect(unlink(path) == 0)
    #expect(throws: Errno(ENOENT)) { try FileIdentity(path: path) }
    // The file lives on while a descriptor is open on it.
    #expect(try FileIdentity(descriptor: fd) == opened)
    close(fd)
    // Not `fd` again: tests running beside this one may open a file under its number at once.
    #expect(throws: Errno(EBADF)) { try FileIdentity(descriptor: Int32.max) }
    #expect(throws: Errno(EBADF)) { try FileIdentity(descriptor: -1) }
    #expect(symlink(directory.file("nothing"), directory.file("dangling")) == 0)
    #expect(throws: Errno(ENOENT)) { try FileIdentity(path: directory.file("dangling")) }
    append("a file\n", to: directory.file("plain"))
    #expect(throws: Errno(ENOTDIR)) { try FileIdentity(path: directory.file("plain/below")) }
    // Nil, as `try?` gives for a vanished path, is no file: it matches none.
    #expect(!opened.matches(nil))
  }

  /// A file made on the inode of a deleted one (which the system reuses, often at once) is
  /// another file when both birth times are known; without one, the device and inode decide.
  @Test func theBirthTimeTellsAFileOnAReusedInodeFromTheOldOne() {
    let old = FileIdentity(device: 7, inode: 42, birth: 1_000)
    #expect(!old.matches(FileIdentity(device: 7, inode: 42, birth: 2_000)))
    #expect(old.matches(FileIdentity(device: 7, inode: 42, birth: 1_000)))
    #expect(old.matches(FileIdentity(device: 7, inode: 42)))
    #expect(FileIdentity(device: 7, inode: 42).matches(old))
    #expect(!old.matches(FileIdentity(device: 8, inode: 42, birth: 1_000)))
    #expect(!old.matches(FileIdentity(device: 7, inode: 43, birth: 1_000)))
    #expect(old != FileIdentity(device: 7, inode: 42))  // `==` compares the values as they are
  }

  /// Nanoseconds since 1970, by the real-time clock.
  private static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
