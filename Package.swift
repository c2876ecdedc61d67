// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    // No product may reach a target named FirebaseFirestore: SwiftPM loads every target that
    // any declared product reaches (whichever product a dependent uses) and refuses a graph
    // where two packages declare the same target name — so such a product would break every
    // app that also depends on firebase-ios-sdk (docs/ios-app-tests.md). hearth-bench is
    // therefore not a declared product either (`swift run hearth-bench` still works here:
    // a root package gets a product for each executable target).
    products: [
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "Hearth", targets: ["Hearth"]),
        .library(name: "HearthRules", targets: ["HearthRules"]),
        .library(name: "HearthTransport", targets: ["HearthTransport"]),
        .library(name: "HearthProtobuf", targets: ["HearthProtobuf"]),
        .library(name: "HearthGRPC", targets: ["HearthGRPC"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .executable(name: "hearth", targets: ["hearth"]),
    ],
    dependencies: [],
    targets: [
        // The protobuf wire reader and writer (proto3, and proto2 groups where asked): the
        // engine's export format and the server's gRPC messages share it.
        .target(name: "HearthProtobuf"),
        // The lock type every module uses (Synchronization's Mutex that ThreadSanitizer can
        // follow), over the C module declaring TSan's annotation calls.
        .target(name: "CHearthSanitizers"),
        .target(name: "HearthLock", dependencies: ["CHearthSanitizers"]),
        .target(name: "HearthCore", dependencies: ["HearthProtobuf", "HearthLock"]),
        .target(name: "Hearth", dependencies: ["HearthCore", "HearthRules"]),
        // `import FirebaseFirestore` for this package's own ScenarioTests and hearth-bench
        // (one file re-exporting Hearth); outside users write `import Hearth`, or choose the
        // drop-in name through a package of their own (docs/ios-app-tests.md).
        .target(name: "FirebaseFirestore", dependencies: ["Hearth"]),
        .target(name: "HearthRules", dependencies: ["HearthCore"]),
        // A seeded generator whose numbers are the same everywhere: the benchmark workload
        // and the randomised tests reproduce from their seeds.
        .target(name: "SeededRandom"),
        // The server by layer: transport (sockets, HTTP/1.1, HTTP/2) below gRPC (framing,
        // calls, the protobuf wire codec) below the Firestore service (REST, gRPC handlers).
        // epoll's declarations, which Glibc's Swift module leaves out (a header, no code).
        .target(name: "CHearthEpoll"),
        .target(name: "HearthTransport", dependencies: ["CHearthEpoll", "HearthLock"]),
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
        // What more than one test target uses (a raw HTTP/1.1 client); on the C library only.
        .target(name: "HearthTestSupport", path: "Tests/HearthTestSupport"),
        .testTarget(name: "HearthTransportTests", dependencies: ["HearthTransport", "HearthTestSupport", "SeededRandom"]),
        .testTarget(name: "HearthProtobufTests", dependencies: ["HearthProtobuf"]),
        .testTarget(name: "HearthGRPCTests", dependencies: ["HearthGRPC", "HearthTransport"]),
        .testTarget(name: "HearthServerTests", dependencies: ["HearthServer", "HearthGRPC", "HearthProtobuf", "HearthTransport", "HearthCore", "HearthTestSupport",
                                                              "SeededRandom"]),
        // Runs the built `hearth` binary (the dependency makes sure it is built first).
        .testTarget(name: "hearthTests", dependencies: ["hearth"]),
    ],
    swiftLanguageModes: [.v6]
)
