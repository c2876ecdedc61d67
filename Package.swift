// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "Hearth", targets: ["Hearth"]),
        .library(name: "FirebaseFirestore", targets: ["FirebaseFirestore"]),
        .library(name: "HearthRules", targets: ["HearthRules"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "HearthCore"),
        .target(name: "Hearth", dependencies: ["HearthCore", "HearthRules"]),
        .target(name: "FirebaseFirestore", dependencies: ["Hearth"]),
        .target(name: "HearthRules", dependencies: ["HearthCore"]),
        .target(name: "HearthServer", dependencies: ["HearthCore", "HearthRules"]),
        .executableTarget(name: "hearth", dependencies: ["Hearth", "HearthCore", "HearthRules", "HearthServer"]),
        .executableTarget(name: "hearth-bench", dependencies: ["FirebaseFirestore", "HearthCore", "HearthRules", "HearthServer"]),
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore"], exclude: ["Export/Fixtures"]),
        .testTarget(name: "HearthTests", dependencies: ["Hearth", "HearthCore"]),
        .testTarget(name: "ScenarioTests", dependencies: ["FirebaseFirestore"]),
        .testTarget(name: "HearthRulesTests", dependencies: ["HearthRules", "HearthCore"]),
        .testTarget(name: "HearthServerTests", dependencies: ["HearthServer", "HearthCore"]),
    ],
    swiftLanguageModes: [.v6]
)
