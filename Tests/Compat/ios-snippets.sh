#!/usr/bin/env bash
# Compiles Google's iOS pipeline snippets (firebase/snippets-ios,
# firestore/swift/firestore-smoketest/PipelineSnippets.swift), unchanged, against this
# Hearth under the SDK's module name — a target named FirebaseFirestore that re-exports Hearth,
# as docs/ios-app-tests.md has an app package do it — with only a CoreLocation shim
# (ios-snippets/). The file
# is third-party code and is not kept in this repository: set HEARTH_PIPELINE_SNIPPETS to a
# copy of it. Without it (CI cannot reach GitHub) the check is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=ios-snippets
if [ -z "${HEARTH_PIPELINE_SNIPPETS:-}" ] || [ ! -f "$HEARTH_PIPELINE_SNIPPETS" ]; then
    echo "$CHECK: SKIPPED — set HEARTH_PIPELINE_SNIPPETS to a copy of PipelineSnippets.swift." >&2
    exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/Sources/Snippets" "$WORK/Sources/CoreLocation" "$WORK/Sources/FirebaseFirestore"
cp "$HEARTH_PIPELINE_SNIPPETS" "$WORK/Sources/Snippets/PipelineSnippets.swift"
cp Tests/Compat/ios-snippets/CoreLocationShim.swift "$WORK/Sources/CoreLocation/"
cp Sources/FirebaseFirestore/FirebaseFirestore.swift "$WORK/Sources/FirebaseFirestore/"
cat > "$WORK/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "Snippets", platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$ROOT")],
    targets: [
        .target(name: "CoreLocation"),
        .target(name: "FirebaseFirestore", dependencies: [.product(name: "Hearth", package: "$(basename "$ROOT")")]),
        .target(name: "Snippets", dependencies: ["CoreLocation", "FirebaseFirestore"],
                swiftSettings: [.swiftLanguageMode(.v5)]),
    ])
SWIFT
swift build --package-path "$WORK" --scratch-path "$ROOT/.build-snippets" 2>&1 | tail -n 20
echo "$CHECK: passed (PipelineSnippets.swift compiles unchanged)"
