// swift-tools-version: 6.1
// Recipe 2 of docs/ios-app-tests.md: an app's data layer, in its own package, whose sources
// say `import FirebaseFirestore`. With the default trait it builds against firebase-ios-sdk
// (what the app gets); `swift test --traits HearthDouble` builds the same sources against
// Hearth's embedded double instead, through FirestoreDouble/ (a target named
// FirebaseFirestore that re-exports Hearth). Exactly one of the two is in the graph: both at
// once would be two targets named FirebaseFirestore, which SwiftPM refuses.
import PackageDescription

let package = Package(
    name: "DataLayer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "DataLayer", targets: ["DataLayer"]),
    ],
    traits: [
        .default(enabledTraits: ["FirebaseSDK"]),
        .trait(name: "FirebaseSDK", description: "Build against firebase-ios-sdk (the app's build)."),
        .trait(name: "HearthDouble", description: "Build against Hearth's embedded double (the package's tests)."),
    ],
    dependencies: [
        // In an app: .package(url: "https://github.com/firebase/firebase-ios-sdk.git", from: "12.0.0")
        .package(path: "../firebase-ios-sdk"),
        .package(path: "FirestoreDouble"),
    ],
    targets: [
        .target(name: "DataLayer", dependencies: [
            .product(name: "FirebaseFirestore", package: "firebase-ios-sdk", condition: .when(traits: ["FirebaseSDK"])),
            .product(name: "FirebaseFirestore", package: "FirestoreDouble", condition: .when(traits: ["HearthDouble"])),
        ]),
        .testTarget(name: "DataLayerTests", dependencies: ["DataLayer"]),
    ],
    swiftLanguageModes: [.v6]
)
