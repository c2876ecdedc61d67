// swift-tools-version: 6.0
// A stand-in for Google's firebase-ios-sdk package, written here (none of Google's code): the
// same package identity (this directory's name) and the same product and target name,
// FirebaseFirestore, with the few declarations the samples call. It proves what SwiftPM does
// with a graph holding both it and Hearth (docs/ios-app-tests.md); it does not run queries.
import PackageDescription

let package = Package(
    name: "Firebase",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FirebaseFirestore", targets: ["FirebaseFirestore"]),
    ],
    targets: [
        .target(name: "FirebaseFirestore"),
    ],
    swiftLanguageModes: [.v6]
)
