// swift-tools-version: 6.0
// Hearth under the Firebase SDK's module name, for the data layer's tests: one target named
// FirebaseFirestore that re-exports Hearth. It lives in its own package because SwiftPM loads
// every target a package's products reach: inside DataLayer (or inside Hearth) a target of
// this name would be in every app's graph beside firebase-ios-sdk's, and the graph refused.
import PackageDescription

let package = Package(
    name: "FirestoreDouble",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FirebaseFirestore", targets: ["FirebaseFirestore"]),
    ],
    dependencies: [
        // In an app: .package(url: "<Hearth's repository>", branch: "main")
        .package(name: "hearth", path: "../../../.."),
    ],
    targets: [
        .target(name: "FirebaseFirestore", dependencies: [.product(name: "Hearth", package: "hearth")]),
    ],
    swiftLanguageModes: [.v6]
)
