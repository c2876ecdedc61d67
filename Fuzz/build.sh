#!/usr/bin/env bash
# Builds the libFuzzer binary .build/fuzz/hearth-fuzz (docs/reliability.md#fuzzing).
#
# SwiftPM builds the library modules into their own scratch folder with libFuzzer's coverage
# instrumentation and AddressSanitizer (`-sanitize=fuzzer,address`); `--target` builds
# object files only, no product is linked, since libFuzzer supplies `main`. Then swiftc
# compiles Fuzz/Targets/*.swift (one small file per group of targets) and links them with
# those objects: one binary for every target, `HEARTH_FUZZ_TARGET` chooses one.
#
# Release (-O) by default: libFuzzer explores several times faster. FUZZ_CONFIG=debug builds
# without optimisation, which compiles faster (what CI's short run uses).
set -euo pipefail
cd "$(dirname "$0")/.."
config=${FUZZ_CONFIG:-release}
scratch=.build/fuzz
# The modules the targets reach; HearthServer pulls in every other one.
swift build -c "$config" --scratch-path "$scratch" --target HearthServer -Xswiftc -sanitize=fuzzer,address
bin=$(swift build -c "$config" --scratch-path "$scratch" --show-bin-path)
objects=()
for module in HearthLock CHearthSanitizers HearthProtobuf HearthCore HearthRules HearthTransport HearthGRPC HearthServer CHearthEpoll; do
    while IFS= read -r o; do objects+=("$o"); done < <(find "$bin/$module.build" -name '*.o' | sort)
done
optimise=-O
[ "$config" = debug ] && optimise=-Onone
swiftc $optimise -sanitize=fuzzer,address -parse-as-library -module-name HearthFuzz \
    -I "$bin/Modules" -I "$bin" -Xcc -fmodule-map-file="$bin/CHearthEpoll.build/module.modulemap" -Xcc -I -Xcc Sources/CHearthEpoll/include \
    -Xcc -fmodule-map-file="$bin/CHearthSanitizers.build/module.modulemap" -Xcc -I -Xcc Sources/CHearthSanitizers/include \
    Fuzz/Targets/*.swift "${objects[@]}" -o "$scratch/hearth-fuzz"
echo "built $scratch/hearth-fuzz ($config)"
