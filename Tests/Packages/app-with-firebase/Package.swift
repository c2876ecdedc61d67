// swift-tools-version: 6.0
// Recipe 1 of docs/ios-app-tests.md: an app that uses firebase-ios-sdk (and its own data-layer
// package) adds Hearth with a plain dependency and product, and its tests start the emulator
// in their own process. Before Hearth's products stopped reaching a target named
// FirebaseFirestore, this graph was refused.
import PackageDescription

let package = Package(
    name: "AppWithFirebase",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        // In an app: .package(url: "https://github.com/firebase/firebase-ios-sdk.git", from: "12.0.0")
        .package(path: "../firebase-ios-sdk"),
        // In an app: .package(url: "<Hearth's repository>", branch: "main")
        .package(name: "hearth", path: "../../.."),
        .package(path: "../data-layer"),
    ],
    targets: [
        .target(name: "AppCore", dependencies: [
            .product(name: "FirebaseFirestore", package: "firebase-ios-sdk"),
            .product(name: "DataLayer", package: "data-layer"),
        ]),
        .testTarget(name: "AppCoreTests", dependencies: [
            "AppCore",
            .product(name: "HearthServer", package: "hearth"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
