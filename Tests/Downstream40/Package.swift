// swift-tools-version: 6.0
// A downstream package written against material-motion's IndefiniteObservable 4.0: the types its
// README guides and examples taught users to write, and its unit tests, unchanged except for
// Apple-only imports (CoreGraphics, UIKit, autoreleasepool). `.ci/run` builds it against this
// checkout with -warnings-as-errors in Swift 6 mode and runs its tests.
import PackageDescription

let package = Package(
  name: "Downstream40",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "IndefiniteObservable", path: "../..")],
  targets: [
    .testTarget(
      name: "Downstream40Tests",
      dependencies: [.product(name: "IndefiniteObservable", package: "IndefiniteObservable")])
  ],
  swiftLanguageModes: [.v6]
)
