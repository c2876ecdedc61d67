#!/usr/bin/env bash
# Runs Hearth's libFuzzer targets (docs/reliability.md#fuzzing).
#
#   Fuzz/run.sh [seconds] [target…]     each target for `seconds` (default 60), all by default
#   Fuzz/run.sh --list                  the targets
#   FUZZ_NO_BUILD=1                     use the binary already built
#   FUZZ_SEED=N                         libFuzzer's random seed (a repeatable run, as CI's)
#
# Each target starts from its committed seeds (Fuzz/corpus/<target>) and the corpus earlier
# runs on this machine grew (.build/fuzz/corpus/<target>, kept between runs), with its
# dictionary when there is one (Fuzz/dict/<target>.dict). Limits, as the fuzzing policy
# sets them: an input using over 1 s of CPU is a hang, one using over 256 MiB a blow-up.
# libFuzzer's -timeout is wall-clock time, which on a loaded machine (a thread handoff can
# wait a second for a core) flags inputs that do little work; so libFuzzer stops only past
# FUZZ_TIMEOUT (default 10) wall seconds and keeps every input over 1 wall second
# (-report_slow_units=1), and each such input is then run again alone and counts as a hang
# only when that run takes over 1 s of CPU (user + system, GNU time); the others are moved
# to findings/<target>/load/ and reported as "slow under load".
# The same for memory: libFuzzer's -rss_limit_mb counts the whole process, which grows with
# AddressSanitizer's quarantine of freed memory (256 MiB by default) over many inputs; the
# quarantine is kept at 32 MiB (ASAN_OPTIONS), and an oom-* input is re-run alone and counts
# only when that run's peak RSS passes 256 MiB (else it goes to load/ too).
# Findings (crash-*, timeout-*, oom-*, leak-*, slow-unit-* files) land in
# .build/fuzz/findings/<target>/.
# Progress: one line per target as it ends, then a summary table; every run's figures are
# also added to .build/fuzz/ledger.tsv (the totals per target over all runs are printed).
# Exit status 1 when any target found something.
set -uo pipefail
cd "$(dirname "$0")/.."
root=.build/fuzz
binary=$root/hearth-fuzz

seconds=60
if [ "${1:-}" = "--list" ]; then
    [ -x "$binary" ] || bash Fuzz/build.sh >&2 || exit 1
    HEARTH_FUZZ_TARGET=- "$binary" 2>&1 | tail -n +2
    exit 0
fi
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
    echo "== building the fuzz binary (first time: several minutes)"
    bash Fuzz/build.sh 2>&1 | grep -E "error|warning: .*Fuzz/|built |Compiling|Build" | grep -v "^\[.*Write" || true
    [ -x "$binary" ] || { echo "fuzz: the build failed" >&2; exit 1; }
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(HEARTH_FUZZ_TARGET=- "$binary" 2>&1 | tail -n +2 | awk '{print $1}')
fi

mkdir -p "$root/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32}
ledger=$root/ledger.tsv
summary=()
found=0
for t in "${targets[@]}"; do
    work=$root/corpus/$t
    findings=$root/findings/$t
    mkdir -p "$work" "$findings"
    seeds=()
    [ -d "Fuzz/corpus/$t" ] && seeds=("Fuzz/corpus/$t")
    # Every earlier finding is replayed first, under the same limits.
    [ -d "Fuzz/regressions/$t" ] && seeds+=("Fuzz/regressions/$t")
    extra=()
    [ -n "${FUZZ_SEED:-}" ] && extra+=("-seed=$FUZZ_SEED")
    [ -f "Fuzz/dict/$t.dict" ] && extra+=("-dict=Fuzz/dict/$t.dict")
    before=$(find "$findings" -maxdepth 1 -type f | wc -l)
    log=$root/logs/$t.log
    printf '%-18s %4ss ... ' "$t" "$seconds"
    # CPU time from GNU time when present (user+system seconds), else wall time.
    timing=$root/logs/$t.time
    start=$(date +%s)
    touch "$timing.start"
    if [ -x /usr/bin/time ]; then
        HEARTH_FUZZ_TARGET=$t /usr/bin/time -f '%U %S' -o "$timing" "$binary" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" \
            -report_slow_units=1 -rss_limit_mb=256 -malloc_limit_mb=256 -print_final_stats=1 -artifact_prefix="$findings/" "${extra[@]}" \
            "$work" "${seeds[@]}" >"$log" 2>&1
    else
        HEARTH_FUZZ_TARGET=$t "$binary" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -report_slow_units=1 -rss_limit_mb=256 -malloc_limit_mb=256 \
            -print_final_stats=1 -artifact_prefix="$findings/" "${extra[@]}" "$work" "${seeds[@]}" >"$log" 2>&1
        echo "$(( $(date +%s) - start )) 0" >"$timing"
    fi
    status=$?
    # (GNU time writes "Command exited with non-zero status N" before the figures.)
    cpu=$(awk 'END {printf "%.0f", $1 + $2}' "$timing" 2>/dev/null || echo 0)
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | awk '{print $2 "/" $4}')
    corpus=$(ls "$work" | wc -l)
    # Slow inputs and wall-clock timeouts: a hang only when one run alone takes > 1 s of CPU.
    slow_load=0
    if [ -x /usr/bin/time ]; then
        for f in $(find "$findings" -maxdepth 1 -type f \( -name 'slow-unit-*' -o -name 'timeout-*' \) -newer "$timing.start"); do
            HEARTH_FUZZ_TARGET=$t /usr/bin/time -f '%U %S' -o "$timing.one" "$binary" -runs=1 -timeout=600 "$f" >/dev/null 2>&1
            one=$(awk 'NR==1 {print ($1 + $2 > 1) ? "hang" : "load"}' "$timing.one")
            if [ "$one" = load ]; then mkdir -p "$findings/load"; mv "$f" "$findings/load/"; slow_load=$((slow_load + 1)); fi
        done
        # A single allocation over the limit (libFuzzer's "out-of-memory (malloc(N))") is a
        # finding however little of it is touched: the input asked for that much. Only an
        # input that, alone, allocates within the limit and peaks under 256 MiB is load.
        for f in $(find "$findings" -maxdepth 1 -type f -name 'oom-*' -newer "$timing.start"); do
            if HEARTH_FUZZ_TARGET=$t /usr/bin/time -f '%M' -o "$timing.one" "$binary" -runs=1 -rss_limit_mb=4096 -malloc_limit_mb=256 "$f" >/dev/null 2>&1 \
                && [ "$(tail -1 "$timing.one")" -le $((256 * 1024)) ]; then
                mkdir -p "$findings/load"; mv "$f" "$findings/load/"; slow_load=$((slow_load + 1))
            fi
        done
    fi
    after=$(find "$findings" -maxdepth 1 -type f | wc -l)
    new=$((after - before))
    [ "$new" -gt 0 ] && found=1
    note=""
    [ "$new" -gt 0 ] && note="FOUND $new: $(ls -t "$findings" | head -"$new" | tr '\n' ' ')"
    [ "$new" -eq 0 ] && [ "$status" -ne 0 ] && [ "$slow_load" -eq 0 ] && note="exit $status (see $log)"
    [ "$slow_load" -gt 0 ] && note="$note ($slow_load slow or big under load only, not alone: findings/$t/load/)"
    echo "cpu ${cpu}s, ${execs:-0} execs, cov/ft ${cov:-?}, corpus $corpus $note"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${cpu:-0}" "${execs:-0}" "${cov:-?}" "$new" >>"$ledger"
    summary+=("$(printf '%-18s %7s %11s %13s %8s' "$t" "${cpu:-0}" "${execs:-0}" "${cov:-?}" "$new")")
done

echo
echo "== this run"
printf '%-18s %7s %11s %13s %8s\n' target "cpu s" executions "cov/features" findings
printf '%s\n' "${summary[@]}"
echo
echo "== all runs on this machine (.build/fuzz/ledger.tsv)"
printf '%-18s %7s %11s %13s %8s\n' target "cpu s" executions "last cov/ft" findings
awk -F'\t' '{cpu[$2] += $3; ex[$2] += $4; fi[$2] += $6; cov[$2] = $5}
    END {for (t in cpu) printf "%-18s %7d %11d %13s %8d\n", t, cpu[t], ex[t], cov[t], fi[t]}' "$ledger" | sort
exit $found
