#!/usr/bin/env bash
# The soak's short version (soak.py): `hearth serve --data-dir` with rules, under REST,
# gRPC, Write-stream, transaction, Listen and WebChannel load plus a slowloris and a
# rapid-reset client, for 60 s; passes when nothing fails that the workload did not earn,
# every acknowledged write reads back (before and after a restart), and descriptors and
# threads come back once the load stops. The long run is Benchmarks/soak.sh
# (docs/reliability.md#soak). Needs the compat venv (skips when PyPI is unreachable).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=soak
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check
SCRATCH=()
[ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
swift build "${SCRATCH[@]}" --product hearth
BIN="$(swift build "${SCRATCH[@]}" --show-bin-path)/hearth"
"$VENV/bin/python" Tests/Compat/soak.py "$BIN" --seconds "${SOAK_SECONDS:-60}" --warmup 20
