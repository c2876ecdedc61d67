#!/usr/bin/env bash
# The long soak (docs/reliability.md#soak): a release build of `hearth serve` under
# Tests/Compat/soak.py's mixed workload for MINUTES (default 30), sampled every 5 s; writes
# the samples (CSV) and the plot (PNG) to OUT (default docs/soak), and fails as the short
# CI version does — plus when resident memory grows faster than 1 MiB/min after warm-up.
# usage: Benchmarks/soak.sh [MINUTES] [OUT-PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CHECK=soak
MINUTES="${1:-30}"
OUT="${2:-docs/soak}"
source Tests/Compat/python-venv.bash
swift build -c release --product hearth
BIN="$(swift build -c release --show-bin-path)/hearth"
"$VENV/bin/python" Tests/Compat/soak.py "$BIN" --seconds "$((MINUTES * 60))" --warmup 300 --interval 5 \
    --csv "$OUT.csv" --png "$OUT.png" --max-rss-slope 1
