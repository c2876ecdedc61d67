# Sourced by the checks that build `hearth`: sets the array SCRATCH, the flags every
# `swift build`/`swift run` of theirs takes. HEARTH_SCRATCH_PATH reuses another build
# directory; HEARTH_SANITIZE=thread|address builds with that sanitizer, by default in a build
# directory of its own (.build/tsan, .build/asan) so that it never clobbers the plain build.
SCRATCH=()
case "${HEARTH_SANITIZE:-}" in
    "") ;;
    thread) SCRATCH=(--sanitize=thread --scratch-path "${HEARTH_SCRATCH_PATH:-.build/tsan}") ;;
    address) SCRATCH=(--sanitize=address --scratch-path "${HEARTH_SCRATCH_PATH:-.build/asan}") ;;
    *) echo "HEARTH_SANITIZE must be thread or address, not $HEARTH_SANITIZE" >&2; exit 2 ;;
esac
[ -z "${HEARTH_SANITIZE:-}" ] && [ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
true
