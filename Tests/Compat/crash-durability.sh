#!/usr/bin/env bash
# SIGKILLs `hearth serve --data-dir` during a storm of concurrent commits (8 writers over
# REST, three-document batches plus a counter increment), five times, restarting it after
# each kill, and checks that every acknowledged batch is present, every batch is all or
# nothing, and nothing unacknowledged appears half done (crash_durability.py). Needs only
# python3's standard library.
set -euo pipefail
cd "$(dirname "$0")/../.."
SCRATCH=()
[ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
swift build "${SCRATCH[@]}" --product hearth
BIN="$(swift build "${SCRATCH[@]}" --show-bin-path)/hearth"
python3 Tests/Compat/crash_durability.py "$BIN" 5 8
echo "crash-durability: passed"
