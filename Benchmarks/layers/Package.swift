// swift-tools-version: 6.0
// follow's path taken apart, layer by layer, for `Benchmarks/follow-vs-tail --layers`, and a
// user's value hopping through a `SendableEmitter`, for `Benchmarks/hop-counts`: a small package
// of its own beside the benchmarks, so that it builds in seconds with no dependency but the
// library.
import PackageDescription

let package = Package(
  name: "FollowLayers",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "IndefiniteObservable", path: "../..")],
  targets: [
    .executableTarget(
      name: "follow-layers",
      dependencies: [
        .product(name: "Multicast", package: "IndefiniteObservable"),
        .product(name: "Producers", package: "IndefiniteObservable"),
      ]),
    .executableTarget(
      name: "emitter-hop",
      dependencies: [.product(name: "Multicast", package: "IndefiniteObservable")]),
  ],
  swiftLanguageModes: [.v6]
)
