// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "IndefiniteObservable",
  // Synchronization's `Atomic` needs these releases on Apple platforms.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "IndefiniteObservable", targets: ["IndefiniteObservable"]),
    .library(name: "Multicast", targets: ["Multicast"]),
    .library(name: "Producers", targets: ["Producers"]),
    .executable(name: "follow", targets: ["follow"]),
  ],
  targets: [
    // The core: 4.0's observable, observer and subscription, value streams and their operators.
    .target(name: "IndefiniteObservable"),
    // Streams shared across subscribers, threads and actors, built on the core's public API.
    .target(name: "Multicast", dependencies: ["IndefiniteObservable", "CIndefiniteObservable"]),
    // Operating-system event sources, built on the public API of the two modules below.
    .target(
      name: "Producers",
      dependencies: ["IndefiniteObservable", "Multicast", "CIndefiniteObservable"]),
    // What Swift's Glibc module lacks (epoll, eventfd, the thread's ID, libdispatch's hooks for
    // a main-thread run loop), for Producers' poller and Multicast's main-thread check.
    .systemLibrary(name: "CIndefiniteObservable"),
    .executableTarget(name: "follow", dependencies: ["Producers", "Multicast"]),
    // What the test targets share: the live-resource check, a seeded random generator and
    // threads started at once. Not a product: nothing outside the tests links it.
    .target(name: "TestSupport", dependencies: ["IndefiniteObservable"], path: "Tests/Support"),
    .testTarget(
      name: "IndefiniteObservableTests",
      dependencies: ["IndefiniteObservable", "Multicast", "TestSupport"]),
    .testTarget(name: "ProducersTests", dependencies: ["Producers", "Multicast", "TestSupport"]),
    // Runs the built `follow` program as a child process.
    .testTarget(name: "FollowTests", dependencies: ["TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
