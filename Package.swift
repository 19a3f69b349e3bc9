// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "IndefiniteObservable",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "IndefiniteObservable", targets: ["IndefiniteObservable"]),
    .library(name: "Producers", targets: ["Producers"]),
    .executable(name: "follow", targets: ["follow"]),
  ],
  targets: [
    .target(name: "CIndefiniteObservableAtomics"),
    .target(name: "IndefiniteObservable", dependencies: ["CIndefiniteObservableAtomics"]),
    .target(name: "Producers", dependencies: ["IndefiniteObservable"]),
    .executableTarget(name: "follow", dependencies: ["Producers"]),
    // What the test targets share: the live-resource check, a seeded random generator and
    // threads started at once. Not a product: nothing outside the tests links it.
    .target(name: "TestSupport", dependencies: ["IndefiniteObservable"], path: "Tests/Support"),
    .testTarget(
      name: "IndefiniteObservableTests", dependencies: ["IndefiniteObservable", "TestSupport"]),
    .testTarget(name: "ProducersTests", dependencies: ["Producers", "TestSupport"]),
    // Runs the built `follow` program as a child process.
    .testTarget(name: "FollowTests", dependencies: ["TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
