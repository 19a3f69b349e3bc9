// swift-tools-version: 6.1
// Benchmarks of IndefiniteObservable against what users would pick instead, in a package of its
// own so that the library itself stays free of dependencies. Run: see README.md.
import PackageDescription

let package = Package(
  name: "Benchmarks",
  platforms: [.macOS(.v15)],
  // The peers that come from other packages (OpenCombine, swift-async-algorithms) are a trait, on
  // by default: `swift package benchmark` and `Benchmarks/report` run them beside ours, in the same
  // executable as before. `Benchmarks/allocations`, which checks only our rows, builds without
  // them (`--disable-default-traits`): their rows are `#if Peers`, and so are their imports.
  traits: [
    .trait(
      name: "Peers",
      description: "The rows of OpenCombine and swift-async-algorithms, and those packages."),
    .default(enabledTraits: ["Peers"]),
  ],
  dependencies: [
    .package(name: "IndefiniteObservable", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    .package(url: "https://github.com/apple/swift-async-algorithms", exact: "1.1.4"),
  ],
  targets: [
    // Our rows, the floors and (with `Peers`) the peers'. No `BenchmarkPlugin`: that build-tool
    // plugin only writes the `@main` of BenchmarkRunner.swift, and its generator cost a release
    // build of ArgumentParser and SystemPackage of its own in each `swift build`
    // (CONTRIBUTING.md, "Where the time goes"). `swift package benchmark` needs no plugin: it
    // runs every executable target in Benchmarks/.
    .executableTarget(
      name: "Streams",
      dependencies: [
        .product(name: "IndefiniteObservable", package: "IndefiniteObservable"),
        .product(name: "Multicast", package: "IndefiniteObservable"),
        .product(name: "Producers", package: "IndefiniteObservable"),
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "OpenCombine", package: "OpenCombine", condition: .when(traits: ["Peers"])),
        .product(
          name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(traits: ["Peers"])),
        .product(
          name: "AsyncAlgorithms", package: "swift-async-algorithms",
          condition: .when(traits: ["Peers"])),
      ],
      path: "Benchmarks/Streams"
    )
  ],
  swiftLanguageModes: [.v6]
)
