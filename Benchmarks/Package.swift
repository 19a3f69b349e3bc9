// swift-tools-version: 6.1
// Benchmarks of IndefiniteObservable against what users would pick instead, in a package of its
// own so that the library itself stays free of dependencies. Run: see README.md.
import PackageDescription

let package = Package(
  name: "Benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "IndefiniteObservable", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    .package(url: "https://github.com/apple/swift-async-algorithms", exact: "1.1.4"),
  ],
  targets: [
    .executableTarget(
      name: "Streams",
      dependencies: [
        .product(name: "IndefiniteObservable", package: "IndefiniteObservable"),
        .product(name: "Multicast", package: "IndefiniteObservable"),
        .product(name: "Producers", package: "IndefiniteObservable"),
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
      ],
      path: "Benchmarks/Streams",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
  ],
  swiftLanguageModes: [.v6]
)
