// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "Hearth", targets: ["Hearth"]),
        .library(name: "FirebaseFirestore", targets: ["FirebaseFirestore"]),
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "HearthCore"),
        .target(name: "Hearth", dependencies: ["HearthCore"]),
        .target(name: "FirebaseFirestore", dependencies: ["Hearth"]),
        .executableTarget(name: "hearth", dependencies: ["Hearth", "HearthCore"]),
        .executableTarget(name: "hearth-bench", dependencies: ["FirebaseFirestore", "HearthCore"]),
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore"]),
        .testTarget(name: "HearthTests", dependencies: ["Hearth", "HearthCore"]),
        .testTarget(name: "ScenarioTests", dependencies: ["FirebaseFirestore"]),
    ],
    swiftLanguageModes: [.v6]
)
