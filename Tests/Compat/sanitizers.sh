#!/usr/bin/env bash
# Hearth under ThreadSanitizer and AddressSanitizer (docs/reliability.md, "Sanitizers").
#
#   Tests/Compat/sanitizers.sh            CI's pass: one sanitizer, one slice of the work (below)
#   Tests/Compat/sanitizers.sh full       everything: `swift test` (every target) and the server
#                                         checks, under both sanitizers (about an hour here)
#   HEARTH_SANITIZERS_SLICE=N             force CI's slice N (0-3) instead of the rotation
#
# Each sanitizer builds in a folder of its own (.build/tsan, .build/asan). Every process
# (`swift test`, the `hearth` binaries the CLI tests start, `hearth serve` under the client
# checks) writes its reports through log_path into one folder; the pass fails when any report
# is there. Suppressions (.ci/sanitizers/*.supp) name what is the toolchain's, with why.
#
# CI's budget is 7 minutes on a clean clone on these 2-core machines, build included, which
# does not hold a sanitizer build of the test targets. So CI builds `hearth` alone with one
# sanitizer and runs server checks against it; which sanitizer and which checks rotate with
# the commit (the last hex digit of HEAD, modulo 4):
#   0: ThreadSanitizer, grpc-python + rest-python
#   1: AddressSanitizer, grpc-python + rest-python
#   2: ThreadSanitizer, hostile-clients (the cases listed in HOSTILE_CASES)
#   3: AddressSanitizer, hostile-clients (same cases)
# `full` runs the whole of `swift test` under each sanitizer as well.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
MODE=${1:-ci}
LOGS=$(mktemp -d /tmp/hearth-sanitizers.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT

# What each sanitizer is told. halt_on_error=0 under TSan: one run shows every report.
# ASan stops at its first error (its default; memory is not trustworthy after one).
# LeakSanitizer is off (HEARTH_SANITIZERS_LEAKS=1 turns it on): on a `hearth serve` that
# exits after POST /shutdown it reports a few small allocations whose only references are
# pointers Swift stores encoded (a weak reference's side table; Data storage), not yet told
# apart from real leaks (docs/reliability.md, "Sanitizers").
tsan_options() { echo "suppressions=$ROOT/.ci/sanitizers/tsan.supp halt_on_error=0 second_deadlock_stack=1 log_path=$LOGS/$1"; }
asan_options() { echo "suppressions=$ROOT/.ci/sanitizers/asan.supp detect_leaks=${HEARTH_SANITIZERS_LEAKS:-0} log_path=$LOGS/$1"; }

# The hostile cases CI runs under a sanitizer (the whole suite takes ~3 minutes unsanitized).
HOSTILE_CASES=${HEARTH_SANITIZERS_HOSTILE_CASES:-rapid-reset,settings-flood,ping-flood,pipelined-unread,unread-listens,oversized,half-frame,ws-oversized,ws-half-frame}

with_sanitizer() {  # SANITIZER LABEL CMD... : runs CMD with that sanitizer's options
    local sanitizer=$1 label=$2; shift 2
    if [ "$sanitizer" = thread ]; then
        TSAN_OPTIONS="$(tsan_options "$label")" HEARTH_SANITIZE=thread "$@"
    else
        ASAN_OPTIONS="$(asan_options "$label")" HEARTH_SANITIZE=address "$@"
    fi
}

build() {  # SANITIZER SUFFIX [ARGS...]: builds into .build/tsan or .build/asan (+SUFFIX), sets HEARTH_BIN
    local sanitizer=$1 dir; shift
    dir=$([ "$sanitizer" = thread ] && echo tsan || echo asan)$1; shift
    echo "== swift build --sanitize=$sanitizer --scratch-path .build/$dir $*"
    local start=$SECONDS
    local log=".build/sanitizer-build-$dir.log"
    mkdir -p .build
    if ! swift build --sanitize="$sanitizer" --scratch-path ".build/$dir" "$@" > "$log" 2>&1; then
        grep -E "error" "$log" | head -20 >&2
        echo "sanitizers: the $sanitizer build failed (.build/sanitizer-build-$dir.log)" >&2
        exit 1
    fi
    grep -E "warning: " "$log" | head -5 || true
    echo "   built in $((SECONDS - start)) s"
    HEARTH_BIN="$(swift build --sanitize="$sanitizer" --scratch-path ".build/$dir" --show-bin-path)/hearth"
    export HEARTH_BIN
}

unit_tests() {  # SANITIZER
    local dir; dir=$([ "$1" = thread ] && echo tsan || echo asan)
    echo "== swift test --sanitize=$1"
    local start=$SECONDS
    with_sanitizer "$1" "test-$dir" swift test --sanitize="$1" --scratch-path ".build/$dir" --skip-build 2>&1 \
        | grep -E "Executed [0-9]+ tests|error: |failed \(" | tail -20 || true
    echo "   tests ran in $((SECONDS - start)) s"
}

server_checks() {  # SANITIZER CHECK...
    local sanitizer=$1; shift
    for check in "$@"; do
        echo "== $check against hearth built with --sanitize=$sanitizer"
        if [ "$check" = hostile-clients ]; then
            # The suite's RSS and timing bounds are set for a plain build (a sanitizer build
            # takes several times the memory and time), so its verdicts are not this pass's:
            # only what the sanitizer reports is.
            with_sanitizer "$sanitizer" "$check" env HEARTH_HOSTILE_CASES="$HOSTILE_CASES" \
                bash Tests/Compat/hostile-clients.sh || echo "   (hostile-clients verdicts above are informative under a sanitizer)"
        else
            # A server that ends with a sanitizer's report exits non-zero, which fails the
            # check; the reports themselves are read below.
            with_sanitizer "$sanitizer" "$check" bash "Tests/Compat/$check.sh" || FAILED+=("$check")
        fi
    done
}

FAILED=()

report() {
    [ ${#FAILED[@]} -eq 0 ] || echo "sanitizers: failed under a sanitizer: ${FAILED[*]}" >&2
    local files; files=$(find "$LOGS" -type f | sort)
    if [ -z "$files" ]; then
        echo "sanitizers: no reports"
        [ ${#FAILED[@]} -eq 0 ]
        return
    fi
    echo "sanitizers: REPORTS in $(echo "$files" | wc -l) process(es):" >&2
    for f in $files; do
        echo "--- $(basename "$f")" >&2
        grep -E "^(WARNING|ERROR|SUMMARY): " "$f" | sort | uniq -c >&2
    done
    echo "--- first report:" >&2
    head -60 "$(echo "$files" | head -1)" >&2
    mkdir -p .build/sanitizer-reports && cp $files .build/sanitizer-reports/
    echo "(all reports copied to .build/sanitizer-reports/)" >&2
    return 1
}

case "$MODE" in
    full)
        for s in thread address; do
            build "$s" "" --build-tests
            unit_tests "$s"
            server_checks "$s" grpc-python rest-python hostile-clients
        done
        ;;
    ci)
        SLICE=${HEARTH_SANITIZERS_SLICE:-$(( 0x$(git rev-parse HEAD | cut -c40) % 4 ))}
        case "$SLICE" in
            0) S=thread; CHECKS=(grpc-python rest-python) ;;
            1) S=address; CHECKS=(grpc-python rest-python) ;;
            2) S=thread; CHECKS=(hostile-clients) ;;
            3) S=address; CHECKS=(hostile-clients) ;;
            *) echo "HEARTH_SANITIZERS_SLICE must be 0-3" >&2; exit 2 ;;
        esac
        echo "== sanitizers: slice $SLICE of 4 (--sanitize=$S: ${CHECKS[*]})"
        # No debug info (-gnone): the build is a third shorter; reports still name every
        # frame's function, and `full` (with line numbers) reproduces one.
        build "$S" -ci --product hearth -Xswiftc -gnone
        server_checks "$S" "${CHECKS[@]}"
        ;;
    *) echo "usage: $0 [ci|full]" >&2; exit 2 ;;
esac
report
