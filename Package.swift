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
        .library(name: "HearthTransport", targets: ["HearthTransport"]),
        .library(name: "HearthProtobuf", targets: ["HearthProtobuf"]),
        .library(name: "HearthGRPC", targets: ["HearthGRPC"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
    ],
    dependencies: [],
    targets: [
        // The protobuf wire reader and writer (proto3, and proto2 groups where asked): the
        // engine's export format and the server's gRPC messages share it.
        .target(name: "HearthProtobuf"),
        .target(name: "HearthCore", dependencies: ["HearthProtobuf"]),
        .target(name: "Hearth", dependencies: ["HearthCore", "HearthRules"]),
        .target(name: "FirebaseFirestore", dependencies: ["Hearth"]),
        .target(name: "HearthRules", dependencies: ["HearthCore"]),
        // A seeded generator whose numbers are the same everywhere: the benchmark workload
        // and the randomised tests reproduce from their seeds.
        .target(name: "SeededRandom"),
        // The server by layer: transport (sockets, HTTP/1.1, HTTP/2) below gRPC (framing,
        // calls, the protobuf wire codec) below the Firestore service (REST, gRPC handlers).
        // epoll's declarations, which Glibc's Swift module leaves out (a header, no code).
        .target(name: "CHearthEpoll"),
        .target(name: "HearthTransport", dependencies: ["CHearthEpoll"]),
        .target(name: "HearthGRPC", dependencies: ["HearthTransport", "HearthProtobuf"]),
        // The console's web files are compiled in (PackageResources.<file>), so the binary stands alone.
        .target(name: "HearthServer", dependencies: ["HearthCore", "HearthRules", "HearthTransport", "HearthGRPC", "HearthProtobuf"],
                resources: [.embedInCode("Console/UI")]),
        .executableTarget(name: "hearth", dependencies: ["Hearth", "HearthCore", "HearthRules", "HearthServer", "HearthTransport"]),
        .executableTarget(name: "hearth-bench", dependencies: ["FirebaseFirestore", "HearthCore", "HearthRules", "HearthServer", "HearthGRPC",
                                                              "HearthProtobuf", "SeededRandom"]),
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore", "SeededRandom"], exclude: ["Export/Fixtures"]),
        .testTarget(name: "HearthTests", dependencies: ["Hearth", "HearthCore"]),
        .testTarget(name: "ScenarioTests", dependencies: ["FirebaseFirestore"]),
        .testTarget(name: "HearthRulesTests", dependencies: ["HearthRules", "HearthCore", "SeededRandom"]),
        .testTarget(name: "HearthTransportTests", dependencies: ["HearthTransport", "SeededRandom"]),
        .testTarget(name: "HearthProtobufTests", dependencies: ["HearthProtobuf"]),
        .testTarget(name: "HearthGRPCTests", dependencies: ["HearthGRPC", "HearthTransport"]),
        .testTarget(name: "HearthServerTests", dependencies: ["HearthServer", "HearthGRPC", "HearthProtobuf", "HearthTransport", "HearthCore",
                                                              "SeededRandom"]),
        // Runs the built `hearth` binary (the dependency makes sure it is built first).
        .testTarget(name: "hearthTests", dependencies: ["hearth"]),
    ],
    swiftLanguageModes: [.v6]
)
