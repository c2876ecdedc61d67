#!/usr/bin/env bash
# Every libFuzzer target for a few seconds (docs/reliability.md#fuzzing): builds the fuzz
# binary (Fuzz/build.sh, unoptimised: it compiles faster, and a few seconds a target is
# about reaching the seeds' neighbourhood, not depth) and runs Fuzz/run.sh with a fixed
# libFuzzer seed, so a CI run repeats. Any crash, hang (> 1 s) or blow-up (> 256 MiB) fails
# CI; its input is in .build/fuzz/findings/<target>/. Budget: FUZZ_CI_SECONDS a target
# (default 3); the build dominates.
# Skips (exit 0) when the toolchain cannot link libFuzzer (a swiftc without it).
set -uo pipefail
cd "$(dirname "$0")/../.."
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cat > "$probe/probe.swift" <<'SWIFT'
@_cdecl("LLVMFuzzerTestOneInput") public func test(_ d: UnsafePointer<UInt8>?, _ n: Int) -> Int32 { 0 }
SWIFT
if ! swiftc -sanitize=fuzzer,address -parse-as-library "$probe/probe.swift" -o "$probe/probe" >/dev/null 2>&1; then
    echo "fuzz: skipped (this swiftc cannot link -sanitize=fuzzer,address)"
    exit 0
fi
FUZZ_CONFIG=${FUZZ_CONFIG:-debug} bash Fuzz/build.sh > "$probe/build.log" 2>&1 || { tail -30 "$probe/build.log"; echo "fuzz: the build failed" >&2; exit 1; }
FUZZ_NO_BUILD=1 FUZZ_SEED=${FUZZ_SEED:-1} bash Fuzz/run.sh "${FUZZ_CI_SECONDS:-3}"
