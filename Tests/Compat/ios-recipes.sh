#!/usr/bin/env bash
# The two recipes of docs/ios-app-tests.md, proven on the sample packages in Tests/Packages/
# (path dependencies on this checkout and on a stand-in firebase-ios-sdk; nothing is fetched):
#   1. app-with-firebase: an app using the SDK and its data-layer package adds Hearth; the
#      graph resolves, and its tests run Hearth's server in their own process (REST over
#      URLSession).
#   2. data-layer: sources that `import FirebaseFirestore` build against the SDK by default
#      and run their tests against Hearth's embedded double with the HearthDouble trait.
# The samples share one scratch directory, so Hearth's modules compile once for all of
# them; the root build's .build is left alone (its flags differ: root targets are built
# for testing). Not part of the root `swift test`: Tests/Packages is no target's folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=ios-recipes
PACKAGES="$ROOT/Tests/Packages"
SCRATCH="${HEARTH_RECIPES_SCRATCH_PATH:-$ROOT/.build/ios-recipes}"
start=$SECONDS
step() { echo "$CHECK: $* ($((SECONDS - start)) s)"; }

run() {  # quiet unless it fails
    local log
    log=$(mktemp)
    if ! "$@" > "$log" 2>&1; then
        tail -n 60 "$log"
        rm -f "$log"
        echo "$CHECK: FAILED: $*" >&2
        exit 1
    fi
    # The samples build without warnings, like the rest of the repository.
    if grep -E "Tests/Packages/.*warning:" "$log" | sort -u | grep .; then
        rm -f "$log"
        echo "$CHECK: FAILED: warnings in a sample package" >&2
        exit 1
    fi
    # How many tests ran (the XCTest pass's summary).
    grep -E "Executed [1-9][0-9]* tests?," "$log" | sort -u || true
    rm -f "$log"
}

step "recipe 1: app-with-firebase (stand-in SDK + data layer + Hearth) — swift test"
run swift test --package-path "$PACKAGES/app-with-firebase" --scratch-path "$SCRATCH"
step "recipe 2: data-layer against the SDK (default trait) — swift build"
run swift build --package-path "$PACKAGES/data-layer" --scratch-path "$SCRATCH"
step "recipe 2: data-layer tests against Hearth (--traits HearthDouble) — swift test"
run swift test --package-path "$PACKAGES/data-layer" --scratch-path "$SCRATCH" --traits HearthDouble
step "passed"
